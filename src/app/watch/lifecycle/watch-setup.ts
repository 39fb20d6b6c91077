// What the daemon opens before it follows anything: the state dir's lock, the
// export records, the watch state of the last run, and the context every
// session tracker shares.
import { resolve } from 'node:path';
import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../adapters/logger.js';
import { lockStateDir, type StateLock } from '../../../adapters/state/state-lock.js';
import { systemClock } from '../../../adapters/system-clock.js';
import { parseOptionsFor } from '../../read/session-spans.js';
import { openExportRecords, type ExportRecords } from '../state/export-records.js';
import { createMalformedLines } from '../state/malformed-lines.js';
import type { TrackerContext } from '../sessions/session-tracker.js';
import type { WatchOptions } from '../watch-options.js';
import { loadWatchState, watchStatePath, type WatchState } from '../state/watch-state.js';

export interface WatchSetup {
  clock: Clock;
  stateDir: string;
  lock: StateLock;
  /** The projects dirs, resolved, each once. */
  roots: string[];
  /** --idle-timeout (ms). */
  idleMs: number;
  recomputeDelayMs: number;
  records: ExportRecords;
  ctx: TrackerContext;
  /** The state saved by the last run; null on a first start (or if it was unreadable). */
  prior: WatchState | null;
  /** When the state was first written (kept across runs). */
  createdAt: string;
}

/** The last run's state; an unreadable one is named in the log and the daemon starts afresh. */
async function loadPrior(stateDir: string, log: Logger): Promise<WatchState | null> {
  const saved = await loadWatchState(stateDir);
  if (saved.kind === 'corrupt') {
    log.warn('watch state was unreadable; starting afresh', {
      file: watchStatePath(stateDir),
      reason: saved.reason,
      movedTo: saved.movedTo,
    });
  }
  return saved.kind === 'ok' ? saved.value : null;
}

export async function prepareWatch(options: WatchOptions): Promise<WatchSetup> {
  const { settings, log } = options;
  const clock = options.clock ?? systemClock;
  const stateDir = settings.stateDir ?? '.';
  // One ccotel per state dir: a second daemon would send every span again.
  const lock = await lockStateDir(stateDir, 'watch', { warn: (m) => log.warn(m) });
  const roots = [...new Set(settings.projectsDirs.map((d) => resolve(d)))];
  const spanOptions = {
    content: settings.content,
    maxAttributeBytes: settings.maxAttributeBytes,
    schema: settings.schema,
  };
  const records = await openExportRecords(stateDir, log);
  const ctx: TrackerContext = {
    prices: options.prices,
    spanOptions,
    parse: parseOptionsFor(spanOptions),
    records,
    log,
    malformed: createMalformedLines(log, () => clock.monotonic()),
  };
  const prior = await loadPrior(stateDir, log);
  return {
    clock,
    stateDir,
    lock,
    roots,
    idleMs: settings.idleTimeoutMs,
    recomputeDelayMs: options.recomputeDelayMs ?? 10,
    records,
    ctx,
    prior,
    createdAt: prior?.createdAt ?? new Date(clock.now()).toISOString(),
  };
}
