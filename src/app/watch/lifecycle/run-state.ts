// What every part of the daemon checks before starting work: --once changes
// the timing (no idle timers, sessions flushed as final), and once stopping no
// new work starts. One object, shared by reference, set only by the shutdown.
export interface RunState {
  /** Process what is there, send what is complete, and stop. */
  readonly once: boolean;
  /** Set when stop() begins. */
  stopping: boolean;
}
