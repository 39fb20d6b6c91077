// What happens to a loaded session as it is written to and as it goes quiet:
// new lines are read and, batched on its schedule, rebuilt into spans; after
// --idle-timeout without a write its unfinished work is sent, marked
// incomplete. Each rebuild tells delivery when spans became ready, and unloads
// the session once everything is out.
import type { Logger } from '../../../adapters/logger.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { RunState } from '../lifecycle/run-state.js';
import type { SessionEntry } from './session-registry.js';
import type { SessionUnloader } from './session-unloader.js';

export interface ActivityOptions {
  run: RunState;
  log: Logger;
  /** --idle-timeout (ms). */
  idleMs: number;
  queue: DeliveryQueue;
  unloader: SessionUnloader;
}

export class SessionActivity {
  private readonly options: ActivityOptions;

  constructor(options: ActivityOptions) {
    this.options = options;
  }

  /** Reads what was appended to `path`, on the session's schedule. */
  ingest(entry: SessionEntry, path: string): Promise<void> {
    const { run, idleMs } = this.options;
    return entry.schedule.run(async () => {
      const t = entry.tracker;
      if (t === null || run.stopping) return;
      if (await t.ingest(path)) {
        this.startIdleTimer(entry, idleMs);
        this.scheduleRecompute(entry);
      }
    });
  }

  /** Rebuilds the session's turns now, queuing the spans that became final. */
  recomputeNow(entry: SessionEntry): void {
    const t = entry.tracker;
    if (t === null) return;
    const folded = t.foldedTurns;
    if (entry.schedule.timed(() => t.recompute())) this.options.queue.kick();
    if (t.foldedTurns !== folded) entry.schedule.forgetCost();
    this.options.unloader.maybeDemote(entry);
  }

  /** (Re)starts the wait after which a quiet session is flushed as idle. */
  startIdleTimer(entry: SessionEntry, delayMs: number): void {
    const { run } = this.options;
    if (run.once || run.stopping) return;
    entry.schedule.armIdle(delayMs, () => this.idleFlush(entry));
  }

  private scheduleRecompute(entry: SessionEntry): void {
    if (this.options.run.stopping) return;
    entry.schedule.requestRebuild(async () => {
      await entry.tracker?.catchUp();
      this.recomputeNow(entry);
    });
  }

  private idleFlush(entry: SessionEntry): void {
    const t = entry.tracker;
    if (t === null || this.options.run.stopping) return;
    if (t.unfinished)
      this.options.log.info('session idle; sending its unfinished work marked incomplete', {
        session: entry.sessionId,
      });
    t.setFlush('idle');
    this.recomputeNow(entry);
  }
}
