// The one owner of export-state.json: what `ccotel export` and the daemon
// remember as delivered, the digest of every turn delivered in full, by trace
// id, and, per session, the files it was read from when all its turns were
// delivered (so that a re-run need not open them again). A re-run sends only
// turns that are new or changed; a turn with any undelivered span is never
// recorded. Format, reading, writing and merging live here so that export,
// watch and status cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadWarning } from '../../core/view/waterfall-row.js';
import type { StampedFile } from '../files/file-info.js';
import { readStateFile, writeStateFile } from './state-file.js';

/**
 * A session whose every turn (in its window) was delivered, as read from
 * these files: while they are as stamped and the delivery settings the same,
 * a re-run takes what reading them would give from here instead.
 */
export interface SessionMark {
  /** Digest of what the spans were built and sent with (deliveryKey). */
  under: string;
  /** The --since of the run that delivered them (ms), or null for all turns. */
  since: number | null;
  /** Every file of the session (main, sub-agents, meta sidecars) as stamped before it was read. */
  files: StampedFile[];
  /**
   * Each turn of the session: [trace id, start time ms, digest]. The mark
   * holds only while the turns record each digest still: a turn another run
   * (or the daemon) delivered anew since then makes the session read again.
   */
  turns: [string, number, string][];
  /** What reading the files warned of, told again when they are not read. */
  warnings: ReadWarning[];
  unknownModels: string[];
  lateAgents: number;
}

export interface ExportState {
  version: 2;
  turns: Record<string, string>;
  /** By main file path. */
  sessions: Record<string, SessionMark>;
}

export const exportStatePath = (stateDir: string): string => join(stateDir, 'export-state.json');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const validStamp = (f: unknown): boolean =>
  Array.isArray(f) &&
  f.length === 6 &&
  typeof f[0] === 'string' &&
  f.slice(1).every((n) => typeof n === 'number');

function validMark(v: unknown): boolean {
  if (!isObject(v) || typeof v.under !== 'string' || typeof v.lateAgents !== 'number') return false;
  if (v.since !== null && typeof v.since !== 'number') return false;
  if (!Array.isArray(v.files) || !Array.isArray(v.turns) || !Array.isArray(v.warnings))
    return false;
  if (!Array.isArray(v.unknownModels) || !v.files.every(validStamp)) return false;
  return v.turns.every(
    (t) =>
      Array.isArray(t) &&
      typeof t[0] === 'string' &&
      typeof t[1] === 'number' &&
      typeof t[2] === 'string',
  );
}

/**
 * The state, or null for an unexpected shape. A version 1 file (ccotel
 * before session marks) keeps its turns and has no marks: every session is
 * read, as it was then.
 */
function validate(value: unknown): ExportState | null {
  if (!isObject(value) || !isObject(value.turns)) return null;
  if (!Object.values(value.turns).every((d) => typeof d === 'string')) return null;
  const turns = value.turns as Record<string, string>;
  if (value.version === 1) return { version: 2, turns, sessions: {} };
  if (value.version !== 2 || !isObject(value.sessions)) return null;
  // One bad mark costs that session a read, not the whole state.
  const sessions: Record<string, SessionMark> = {};
  for (const [file, mark] of Object.entries(value.sessions))
    if (validMark(mark)) sessions[file] = mark as unknown as SessionMark;
  return { version: 2, turns, sessions };
}

export const emptyExportState = (): ExportState => ({ version: 2, turns: {}, sessions: {} });

/** The state on disk, or a fresh one; a corrupt file is moved aside and named in `problem`. */
export async function loadExportState(
  stateDir: string,
): Promise<{ state: ExportState; problem: string | null }> {
  const read = await readStateFile(exportStatePath(stateDir), validate);
  if (read.kind === 'ok') return { state: read.value, problem: null };
  const fresh = emptyExportState();
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
