// A small seeded PRNG (mulberry32) for whatever must be random yet replayable:
// the generated long session (long-session.mjs) and the kill -9 soak's timing
// (test/faults/watch-faults.test.ts, seeded by CCOTEL_FUZZ_SEED).

/** Numbers in [0, 1), the same sequence for the same seed. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
