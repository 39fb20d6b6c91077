// What the start-up scan decides for each session found: the record it
// starts from, and whether to load it now. Pure: the scan, the saved state and
// the time come in.
import type { FileRecord, SessionRecord, WatchState } from '../state/watch-state.js';

export interface PlanInput {
  /** The state saved by the last run; null on a first start. */
  prior: WatchState | null;
  backfill: boolean;
  /** Wall-clock epoch ms. */
  now: number;
  idleMs: number;
}

export interface FoundSession {
  key: string;
  /** The session's files as they are now. */
  current: Record<string, FileRecord>;
  /** Last write to any of them (epoch ms). */
  lastWrite: number;
}

export const newRecord = (): SessionRecord => ({
  files: {},
  skip: 0,
  baseline: null,
  live: true,
  turns: {},
});

export function planSession(
  found: FoundSession,
  input: PlanInput,
): { record: SessionRecord; load: boolean } {
  const { key, current, lastWrite } = found;
  const was = input.prior?.sessions[key];
  if (was === undefined && input.prior === null && !input.backfill) {
    // First start: what is there is history. Note where it ends; read it only if the session is in use.
    const load = input.now - lastWrite < input.idleMs;
    return {
      record: { files: current, skip: 0, baseline: current[key]?.size ?? 0, live: load, turns: {} },
      load,
    };
  }
  if (was === undefined) return { record: { ...newRecord(), files: current }, load: true };
  const changed = Object.entries(current).some(
    ([p, f]) => was.files[p]?.ino !== f.ino || was.files[p]?.size !== f.size,
  );
  // Files as they are now: a loaded session re-reads them all anyway, an unchanged one has these.
  const record: SessionRecord = { ...was, files: current, turns: { ...was.turns } };
  if (input.backfill) {
    record.skip = 0;
    record.baseline = null;
  }
  return { record, load: was.live || changed || input.backfill };
}
