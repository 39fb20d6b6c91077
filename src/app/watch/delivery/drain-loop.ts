// When the delivery queue sends: one request at a time, starting a few ms
// after something became ready (the linger batches spans that complete
// together), going on until nothing is left, and telling whoever waits once it
// is idle. What a round sends is the caller's.
import type { Clock, Timer } from '../../../core/clock.js';
import type { Logger } from '../../../adapters/logger.js';

export interface DrainLoopOptions {
  clock: Clock;
  lingerMs: number;
  log: Logger;
  /** Aborted: no round starts any more. */
  signal: AbortSignal;
  /** True once delivery gave up (--once retries used up): no round starts any more. */
  halted(): boolean;
  /** Sends the next batch; null when there is nothing to send. */
  sendNext(): Promise<void> | null;
}

export class DrainLoop {
  private readonly options: DrainLoopOptions;
  private running = false;
  private scheduled: Timer | null = null;
  private idleWaiters: (() => void)[] = [];

  constructor(options: DrainLoopOptions) {
    this.options = options;
  }

  get busy(): boolean {
    return this.running || this.scheduled !== null;
  }

  /** Something became ready: drain after the linger, unless a drain is under way or due. */
  kick(): void {
    if (this.running || this.scheduled !== null || this.options.signal.aborted) return;
    this.scheduled = this.options.clock.setTimer(this.options.lingerMs, () => {
      this.scheduled = null;
      void this.drain();
    });
  }

  /** Resolves when nothing is being sent and the last round found nothing. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
    });
  }

  /** Drops a pending linger (after the signal aborted); an idle loop wakes its waiters. */
  cancel(): void {
    this.scheduled?.cancel();
    this.scheduled = null;
    if (!this.running) this.wakeWaiters();
  }

  // Never rejects: a failure is logged and the loop ends, so `void` above is safe.
  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.options.signal.aborted && !this.options.halted()) {
        const sending = this.options.sendNext();
        if (sending === null) break;
        await sending;
      }
    } catch (err) {
      this.options.log.error('delivery failed unexpectedly', { error: err });
    } finally {
      this.running = false;
      this.wakeWaiters();
    }
  }

  private wakeWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
