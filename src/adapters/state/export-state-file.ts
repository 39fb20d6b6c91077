// The one owner of export-state.json: what `ccotel export` and the daemon
// remember as delivered, the digest of every turn delivered in full, by trace
// id. A re-run sends only turns that are new or changed; a turn with any
// undelivered span is never recorded. Format, reading, writing and merging
// live here so that export, watch and status cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStateFile, writeStateFile } from './state-file.js';

export interface ExportState {
  version: 1;
  turns: Record<string, string>;
}

export const exportStatePath = (stateDir: string): string => join(stateDir, 'export-state.json');

function validate(value: unknown): ExportState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as { version?: unknown; turns?: unknown };
  if (v.version !== 1 || typeof v.turns !== 'object' || v.turns === null || Array.isArray(v.turns))
    return null;
  if (!Object.values(v.turns).every((d) => typeof d === 'string')) return null;
  return value as ExportState;
}

/** The state on disk, or a fresh one; a corrupt file is moved aside and named in `problem`. */
export async function loadExportState(
  stateDir: string,
): Promise<{ state: ExportState; problem: string | null }> {
  const read = await readStateFile(exportStatePath(stateDir), validate);
  if (read.kind === 'ok') return { state: read.value, problem: null };
  const fresh: ExportState = { version: 1, turns: {} };
  if (read.kind === 'missing') return { state: fresh, problem: null };
  return {
    state: fresh,
    problem: `state file ${exportStatePath(stateDir)} was unreadable (${read.reason}); ${read.movedTo === null ? 'ignored it' : `moved it to ${read.movedTo}`} and starting afresh (already-exported turns will be resent with the same ids)`,
  };
}

/** Replaces the whole file: for the one writer that loaded it and holds the export lock. */
export const saveExportState = (stateDir: string, state: ExportState): Promise<void> =>
  writeStateFile(exportStatePath(stateDir), state);

/**
 * Adds these turns to what is on disk now rather than overwriting it: an
 * export may have written the file since it was read. An unreadable file on
 * disk is told to onProblem before the write, which may then fail.
 */
export async function mergeExportState(
  stateDir: string,
  turns: ReadonlyMap<string, string>,
  onProblem: (problem: string) => void,
): Promise<ExportState> {
  const current = await loadExportState(stateDir);
  if (current.problem !== null) onProblem(current.problem);
  for (const [traceId, digest] of turns) current.state.turns[traceId] = digest;
  await saveExportState(stateDir, current.state);
  return current.state;
}

/**
 * Trace ids of the turns delivered in full; empty when there is no readable
 * state. Without side effects: `status` must not move a corrupt state file
 * aside the way `export` does.
 */
export function readDeliveredTraceIds(stateDir: string): Set<string> {
  try {
    const value = JSON.parse(readFileSync(exportStatePath(stateDir), 'utf8')) as {
      turns?: unknown;
    };
    const turns = value.turns;
    if (typeof turns !== 'object' || turns === null) return new Set();
    return new Set(Object.keys(turns));
  } catch {
    return new Set();
  }
}
