// The real clock (src/core/clock.ts): Date.now, performance.now, setTimeout.
// Timers hold the process open, as plain timers do: `watch --once` has no
// watcher keeping it alive while a rebuild waits.
import type { Clock, Timer } from '../core/clock.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(ms: number, fn: () => void): Timer {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};
