// A wait on the injected clock that an AbortSignal ends early: a backoff must
// not hold up a stop.
import type { Clock } from '../../../core/clock.js';

/** Waits `ms` on the clock, or until the signal aborts. */
export const abortableSleep = (clock: Clock, ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = clock.setTimer(ms, done);
    function done(): void {
      timer.cancel();
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
