// The daemon's view of the export state, the file `ccotel export` uses to
// skip turns it already delivered. The daemon records a turn there once every
// span of it went out with the content export would compute, so an export
// after a watch sends nothing new. Writes merge into what is on disk (an
// export may have run meanwhile) rather than overwrite it.
import { loadExportState, mergeExportState } from '../../../adapters/state/export-state-file.js';
import type { Logger } from '../../../adapters/logger.js';

export interface ExportRecords {
  /** Digest recorded for a trace, if any. */
  get(traceId: string): string | undefined;
  /** Remember a fully delivered turn; written by the next save(). */
  record(traceId: string, digest: string): void;
  /** Whether record() was called since the last save(). */
  readonly dirty: boolean;
  save(): Promise<void>;
}

export async function openExportRecords(stateDir: string, log: Logger): Promise<ExportRecords> {
  const loaded = await loadExportState(stateDir);
  if (loaded.problem !== null) log.warn(loaded.problem);
  let known = new Map(Object.entries(loaded.state.turns));
  let pending = new Map<string, string>();
  return {
    get: (traceId) => pending.get(traceId) ?? known.get(traceId),
    record(traceId, digest) {
      pending.set(traceId, digest);
    },
    get dirty() {
      return pending.size > 0;
    },
    async save() {
      if (pending.size === 0) return;
      const writing = pending;
      pending = new Map();
      try {
        const merged = await mergeExportState(stateDir, writing, (problem) => log.warn(problem));
        known = new Map(Object.entries(merged.turns));
      } catch (err) {
        // Keep them for the next attempt; newer records of the same trace win.
        for (const [traceId, digest] of writing)
          if (!pending.has(traceId)) pending.set(traceId, digest);
        throw err;
      }
    },
  };
}
