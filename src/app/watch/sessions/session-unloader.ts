// Sessions are unloaded once quiet for --idle-timeout (or, with --once, read
// to their end) and fully delivered, so memory follows the sessions in use,
// not the history. An unloaded session keeps only its record.
import type { Logger } from '../../../adapters/logger.js';
import type { RunState } from '../lifecycle/run-state.js';
import type { SessionEntry } from './session-registry.js';

export class SessionUnloader {
  private readonly run: RunState;
  private readonly log: Logger;
  /** The record changed: saved soon, not at once (nothing is lost if it is not). */
  private readonly persistSoon: () => void;

  constructor(run: RunState, log: Logger, persistSoon: () => void) {
    this.run = run;
    this.log = log;
    this.persistSoon = persistSoon;
  }

  /** Unload a session whose work is flushed and delivered. */
  maybeDemote(entry: SessionEntry): void {
    const t = entry.tracker;
    if (t === null || t.pending > 0) return;
    if (t.flushMode === 'idle' || (this.run.once && t.flushMode === 'final')) this.demote(entry);
  }

  private demote(entry: SessionEntry): void {
    if (entry.tracker === null) return;
    entry.record = entry.tracker.toRecord(false);
    entry.tracker = null;
    entry.schedule.cancelTimers();
    this.log.debug('session quiet and delivered; unloaded', { session: entry.sessionId });
    this.persistSoon();
  }
}
