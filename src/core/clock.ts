// Time as a port: the daemon's timers and "now" come through this, so its
// timing is tested with a manual clock instead of real sleeps
// (src/adapters/system-clock.ts is the real one).

/** A pending callback; cancelling an already fired or cancelled timer is harmless. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Wall-clock epoch milliseconds (file mtimes, timestamps in the state file). */
  now(): number;
  /** Monotonic milliseconds, for durations and spacing (never steps back). */
  monotonic(): number;
  /** Calls `fn` once after `ms` (≥ 0). */
  setTimer(ms: number, fn: () => void): Timer;
}
