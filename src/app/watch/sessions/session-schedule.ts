// When one followed session does its work, on the injected clock: every job
// touching the session runs in order on one chain; new lines wait a moment to
// be batched into one rebuild, spaced out further when rebuilds are costly; an
// idle timer fires once the session has been quiet for --idle-timeout.
import type { Clock, Timer } from '../../../core/clock.js';

export interface ScheduleOptions {
  clock: Clock;
  /** Batching of new lines before a rebuild (ms). */
  rebuildDelayMs: number;
  /** A job that threw: logged by the caller, the chain goes on. */
  onError(err: unknown): void;
}

export type Job = () => Promise<void> | void;

export class SessionSchedule {
  private readonly options: ScheduleOptions;
  private chain: Promise<void> = Promise.resolve();
  private rebuildTimer: Timer | null = null;
  private idleTimer: Timer | null = null;
  /** Duration of the last rebuild and when it ended (monotonic ms). */
  private lastCostMs = 0;
  private lastRebuildAt = 0;
  private stopped = false;

  constructor(options: ScheduleOptions) {
    this.options = options;
  }

  /** Runs `job` after everything queued before it; resolves when it is done. */
  run(job: Job): Promise<void> {
    this.chain = this.chain.then(job).catch((err: unknown) => this.options.onError(err));
    return this.chain;
  }

  /** Resolves when every job queued so far is done. */
  idle(): Promise<void> {
    return this.chain;
  }

  get rebuildPending(): boolean {
    return this.rebuildTimer !== null;
  }

  /**
   * Queues `job` as a rebuild, unless one is already waiting (it will see these
   * lines too). A rebuild re-derives the whole session: in a huge session the
   * next waits so that rebuilds take at most about a third of the CPU.
   */
  requestRebuild(job: Job): void {
    if (this.rebuildTimer !== null || this.stopped) return;
    const clock = this.options.clock;
    const spacing = 3 * this.lastCostMs - (clock.monotonic() - this.lastRebuildAt);
    this.rebuildTimer = clock.setTimer(Math.max(this.options.rebuildDelayMs, spacing), () => {
      this.rebuildTimer = null;
      void this.run(job);
    });
  }

  /** Runs `rebuild` now, noting its cost for the spacing of the next. */
  timed<T>(rebuild: () => T): T {
    const clock = this.options.clock;
    const started = clock.monotonic();
    try {
      return rebuild();
    } finally {
      this.lastRebuildAt = clock.monotonic();
      this.lastCostMs = this.lastRebuildAt - started;
    }
  }

  /**
   * The last rebuild's cost says nothing of the next: it folded finished turns
   * away (core/session-reader.ts), so the next reads only the open turn. Without
   * this, the first line after a start-up on a long session waited up to three
   * times the start-up's whole-history rebuild.
   */
  forgetCost(): void {
    this.lastCostMs = 0;
  }

  /** (Re)starts the idle timer: `job` runs once nothing re-arms it for `delayMs`. */
  armIdle(delayMs: number, job: Job): void {
    this.idleTimer?.cancel();
    this.idleTimer = null;
    if (this.stopped) return;
    this.idleTimer = this.options.clock.setTimer(Math.max(1, delayMs), () => {
      this.idleTimer = null;
      void this.run(job);
    });
  }

  /** Cancels the pending timers; jobs already queued still run. */
  cancelTimers(): void {
    this.rebuildTimer?.cancel();
    this.idleTimer?.cancel();
    this.rebuildTimer = null;
    this.idleTimer = null;
  }

  /** No timer starts any more (shutdown). */
  stop(): void {
    this.stopped = true;
    this.cancelTimers();
  }
}
