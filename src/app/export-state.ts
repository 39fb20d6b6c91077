// What `ccotel export` remembers between runs: the digest of every turn it
// delivered in full, by trace id. A re-run sends only turns that are new or
// changed; a turn with any undelivered span is never recorded.
import { join } from 'node:path';
import { readStateFile, writeStateFile } from '../adapters/state-file.js';

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

export const saveExportState = (stateDir: string, state: ExportState): Promise<void> =>
  writeStateFile(exportStatePath(stateDir), state);
