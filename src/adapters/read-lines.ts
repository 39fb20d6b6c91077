// Streams a file as complete lines: a 1 GB transcript is never held whole.
// An unterminated last line is "not yet written": it is not yielded, and its
// byte count is reported so a tailer can resume before it.
//
// Reads are synchronous, into one reused 1 MB buffer, yielding to the event
// loop whenever reading has held it for 20 ms (across files: a backfill of
// thousands of small files must not starve timers and sockets either).
// Measured on the 200 MB benchmark corpus (6,800 files, mostly small): a read
// stream per file costs ~5 thread-pool round trips and a fresh buffer each,
// which made reading alone several times slower than parsing; a reused buffer
// also spares the page faults of fresh allocations (docs/benchmarks.md).
import { closeSync, openSync, readSync } from 'node:fs';
import { createLineSplitter, type Line } from '../core/line-splitter.js';

export interface ReadLinesResult {
  /** Offset just past the last complete line. */
  consumed: number;
  /** Number of the next line to be read. */
  nextLine: number;
  /** Bytes after the last newline (an unfinished write). */
  pendingBytes: number;
}

const CHUNK = 1 << 20;
/** Other work (timers, HTTP) gets the event loop at least this often, in ms. */
const YIELD_AFTER_MS = 20;
let heldSince = performance.now();

/**
 * Shared by every call: each chunk is read and fully split into strings (the
 * splitter copies any unterminated tail) before anything is awaited, so no
 * call can see another's bytes.
 */
let shared: Buffer | null = null;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Feeds the file from `start` to `take`, one chunk at a time, into a reused buffer. */
async function readChunks(
  file: string,
  start: number,
  take: (chunk: Buffer) => void | Promise<void>,
): Promise<void> {
  const fd = openSync(file, 'r');
  try {
    let position = start;
    for (;;) {
      const buffer = (shared ??= Buffer.allocUnsafe(CHUNK));
      const read = readSync(fd, buffer, 0, CHUNK, position);
      if (read === 0) break;
      position += read;
      const taken = take(buffer.subarray(0, read));
      if (taken !== undefined) await taken;
      if (performance.now() - heldSince >= YIELD_AFTER_MS) {
        await yieldToLoop();
        heldSince = performance.now();
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls onLines for each batch of complete lines, from `start` (byte offset)
 * on; when it returns a promise, reading waits for it (a consumer exporting as
 * it reads holds the reader back instead of queueing).
 */
export async function readLines(
  file: string,
  onLines: (lines: Line[]) => void | Promise<void>,
  start = 0,
  startLine = 1,
): Promise<ReadLinesResult> {
  const splitter = createLineSplitter(start, startLine);
  let nextLine = startLine;
  await readChunks(file, start, (chunk) => {
    const lines = splitter.push(chunk);
    if (lines.length > 0) {
      nextLine = (lines[lines.length - 1]?.number ?? nextLine) + 1;
      return onLines(lines);
    }
    return undefined;
  });
  return { consumed: splitter.consumed, nextLine, pendingBytes: splitter.pendingBytes };
}
