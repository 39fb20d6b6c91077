// Polls a condition the test cannot wait on by event (a child's stderr, a
// receiver's spans): bounded, and the error names what never happened.

export async function waitUntil(
  test: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
