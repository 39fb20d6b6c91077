// The sessions the daemon follows, by main file. A loaded session holds a
// tracker; the others only their persisted record. The state file is a
// snapshot of this registry.
import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../adapters/logger.js';
import { SessionSchedule } from './session-schedule.js';
import type { SessionTracker } from './session-tracker.js';
import { newRecord } from '../lifecycle/startup-plan.js';
import type { SessionRecord, WatchState } from '../state/watch-state.js';

export interface SessionEntry {
  key: string;
  sessionId: string;
  /** Persisted view; authoritative while the session is not loaded. */
  record: SessionRecord;
  tracker: SessionTracker | null;
  /** Everything touching the session runs in order on its schedule. */
  schedule: SessionSchedule;
}

export interface RegistryOptions {
  clock: Clock;
  log: Logger;
  /** Batching of new lines before a rebuild (ms). */
  rebuildDelayMs: number;
}

export class SessionRegistry {
  private readonly options: RegistryOptions;
  private readonly entries = new Map<string, SessionEntry>();

  constructor(options: RegistryOptions) {
    this.options = options;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): SessionEntry | undefined {
    return this.entries.get(key);
  }

  /** The session's entry, created unloaded with an empty record on first sight. */
  entryFor(key: string, sessionId: string): SessionEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const { clock, log, rebuildDelayMs } = this.options;
      entry = {
        key,
        sessionId,
        record: newRecord(),
        tracker: null,
        schedule: new SessionSchedule({
          clock,
          rebuildDelayMs,
          onError: (err) =>
            log.error('session processing failed', { session: sessionId, error: err }),
        }),
      };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Whether `entry` is still the one followed under its key (not deleted meanwhile). */
  holds(entry: SessionEntry): boolean {
    return this.entries.get(entry.key) === entry;
  }

  delete(entry: SessionEntry): void {
    this.entries.delete(entry.key);
  }

  values(): IterableIterator<SessionEntry> {
    return this.entries.values();
  }

  /** What the state file holds: each loaded session as its tracker sees it now. */
  snapshot(createdAt: string): WatchState {
    const sessions: Record<string, SessionRecord> = {};
    for (const entry of this.entries.values())
      sessions[entry.key] = entry.tracker === null ? entry.record : entry.tracker.toRecord(true);
    return { version: 1, createdAt, sessions };
  }

  /** Spans queued in loaded sessions and not yet delivered. */
  undeliveredSpans(): number {
    return [...this.entries.values()].reduce((n, e) => n + (e.tracker?.pending ?? 0), 0);
  }
}
