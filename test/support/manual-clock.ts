// A clock that only moves when told (src/core/clock.ts): timers fire, in due
// order, during advance(); the daemon's timing is tested without sleeping.
import type { Clock, Timer } from '../../src/core/clock.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing each timer due on the way (and letting its jobs run). */
  advance(ms: number): Promise<void>;
  /** Timers not yet fired or cancelled. */
  readonly pending: number;
}

export function manualClock(start = 1_700_000_000_000): ManualClock {
  let now = 0;
  let seq = 0;
  const timers = new Set<Pending>();
  const flush = async (): Promise<void> => {
    // Let promise chains started by a timer run before the next one fires.
    for (let i = 0; i < 20; i += 1) await Promise.resolve();
  };
  return {
    now: () => start + now,
    monotonic: () => now,
    setTimer(ms: number, fn: () => void): Timer {
      const t: Pending = { at: now + Math.max(0, ms), seq: (seq += 1), fn };
      timers.add(t);
      return { cancel: () => void timers.delete(t) };
    },
    get pending() {
      return timers.size;
    },
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers]
          .filter((t) => t.at <= end)
          .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
        if (due === undefined) break;
        timers.delete(due);
        now = due.at;
        due.fn();
        await flush();
      }
      now = end;
      await flush();
    },
  };
}
