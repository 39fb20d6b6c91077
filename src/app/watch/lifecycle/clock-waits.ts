// Waiting on the injected clock, so the daemon's shutdown and settling are
// timed by the same clock as the rest of it.
import type { Clock } from '../../../core/clock.js';

export const sleepOn = (clock: Clock, ms: number): Promise<void> =>
  new Promise((r) => clock.setTimer(Math.max(0, ms), r));

/** Waits for work, but not past a deadline (epoch ms); the timer is cancelled so it cannot hold the process open. */
export async function until(clock: Clock, work: Promise<unknown>, deadline: number): Promise<void> {
  let cancel = (): void => undefined;
  const expired = new Promise<void>((r) => {
    cancel = clock.setTimer(Math.max(0, deadline - clock.now()), r).cancel;
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    cancel();
  }
}
