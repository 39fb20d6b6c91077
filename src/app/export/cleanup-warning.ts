// Claude Code deletes transcripts older than its cleanupPeriodDays (30 by
// default) when it starts. A session that is close to that age and whose turns
// no export or daemon has delivered will then exist nowhere: `status` and
// `export` say so, in one line per run, while there is time to export it.
// Only transcripts old enough to warn about cost more than a stat: a session
// is read, and the state file too, only when its transcript is that old.
import { dirname, join } from 'node:path';
import { traceIdFor } from '../../core/spans/ids.js';
import { readCleanupPeriod, type CleanupPeriod } from '../../adapters/config/claude-settings.js';
import { readDeliveredTraceIds } from '../../adapters/state/export-state-file.js';
import { realPathOf } from '../../adapters/files/projects-dir.js';
import {
  findSessionsSync,
  statOrNull,
  type SessionFiles,
} from '../../adapters/files/session-files.js';
import type { FileStamp } from '../../adapters/files/file-info.js';
import { readSession } from '../read/read-session.js';

const DAY_MS = 86_400_000;
/** Warned this many days before the cleanup would delete a transcript. */
export const CLEANUP_MARGIN_DAYS = 3;
/** Session ids named in the warning, at most. */
const MAX_NAMED = 3;

export interface CleanupCheckOptions {
  /** Transcript files, session, project or projects dirs: as export takes them. */
  roots: string[];
  /** The sessions under `roots`, when the caller listed them already (export has). */
  listed?: SessionFiles[];
  /** Main files as the caller stamped them already (export has, before reading them). */
  stamped?: ReadonlyMap<string, FileStamp>;
  /** Main files of sessions the caller knows delivered in full (export's marks): not read. */
  delivered?: ReadonlySet<string>;
  stateDir: string;
  now: number;
}

/** Claude Code's settings.json for a project dir: in the config dir above its projects dir. */
const settingsFileOf = (projectDir: string): string =>
  join(dirname(dirname(projectDir)), 'settings.json');

/**
 * Whether some turn of the session was never delivered. Read in segments, as
 * export reads it (a transcript read whole is held whole), main file only
 * (a turn's id is its prompt's), and no further than the first such turn.
 */
async function turnsUndelivered(files: SessionFiles, delivered: Set<string>): Promise<boolean> {
  const read = readSession(
    { ...files, agentFiles: [], metaFiles: [] },
    { parse: { textLimit: 64, keepTexts: false } },
  );
  for await (const { model, firstTurn } of read.segments())
    if (model.turns.slice(firstTurn).some((t) => !delivered.has(traceIdFor(t.promptUuid))))
      return true;
  return false;
}

function listSessions(roots: string[]): SessionFiles[] {
  const all: SessionFiles[] = [];
  for (const root of roots) {
    let found: SessionFiles[];
    try {
      found = findSessionsSync(root);
    } catch {
      continue; // a missing root is reported by the command itself
    }
    for (const s of found) all.push(s);
  }
  return all;
}

/**
 * Each existing transcript once, with its last write, in listing order
 * however many roots reach it (a symlinked projects dir). The same file is
 * told by the (dev, ino) of the stat the age needs anyway; a realpath only
 * when two share them, to keep hard links apart as distinct paths.
 */
function transcriptsOnce(
  sessions: SessionFiles[],
  stamped: ReadonlyMap<string, FileStamp> | undefined,
): { files: SessionFiles; mtimeMs: number }[] {
  const out: { files: SessionFiles; mtimeMs: number }[] = [];
  // Keyed by the inode number alone, the device compared within: a
  // `${dev}:${ino}` string per transcript was a third of this loop's own time.
  const kept = new Map<number, { dev: number; files: string[] }[]>();
  for (const s of sessions) {
    const info = stamped?.get(s.mainFile) ?? statOrNull(s.mainFile);
    if (info === null) continue;
    const onInode = kept.get(info.ino);
    const same = onInode?.find((k) => k.dev === info.dev)?.files;
    if (same === undefined) {
      const entry = { dev: info.dev, files: [s.mainFile] };
      if (onInode === undefined) kept.set(info.ino, [entry]);
      else onInode.push(entry);
    } else {
      const real = realPathOf(s.mainFile);
      if (same.some((f) => realPathOf(f) === real)) continue;
      same.push(s.mainFile);
    }
    out.push({ files: s, mtimeMs: info.mtimeMs });
  }
  return out;
}

/** The warning lines (none, or one plus any settings.json problems). */
export async function cleanupWarnings(options: CleanupCheckOptions): Promise<string[]> {
  const notes: string[] = [];
  const periods = new Map<string, CleanupPeriod>();
  const periodOf = (file: string): CleanupPeriod => {
    let period = periods.get(file);
    if (period === undefined) {
      period = readCleanupPeriod(file);
      periods.set(file, period);
      if (period.problem !== null) notes.push(period.problem);
    }
    return period;
  };
  // Sessions of one project share its settings file: its path is worked out once.
  const byProject = new Map<string, CleanupPeriod>();
  const periodOfProject = (projectDir: string): CleanupPeriod => {
    let period = byProject.get(projectDir);
    if (period === undefined) {
      period = periodOf(settingsFileOf(projectDir));
      byProject.set(projectDir, period);
    }
    return period;
  };
  let delivered: Set<string> | null = null;
  const atRisk: { id: string; days: number }[] = [];
  const listed = options.listed ?? listSessions(options.roots);
  for (const { files: s, mtimeMs: mtime } of transcriptsOnce(listed, options.stamped)) {
    const { days } = periodOfProject(s.projectDir);
    if (mtime >= options.now - (days - CLEANUP_MARGIN_DAYS) * DAY_MS) continue;
    if (options.delivered?.has(s.mainFile) === true) continue;
    delivered ??= readDeliveredTraceIds(options.stateDir);
    if (await turnsUndelivered(s, delivered)) atRisk.push({ id: s.sessionId, days });
  }
  const first = atRisk[0];
  if (first === undefined) return notes;
  const ids = atRisk.map((r) => r.id).sort();
  const named = ids.slice(0, MAX_NAMED).join(', ');
  const more = ids.length > MAX_NAMED ? ` and ${ids.length - MAX_NAMED} more` : '';
  const sessions = atRisk.length === 1 ? '1 session is' : `${atRisk.length} sessions are`;
  notes.unshift(
    `${sessions} within ${CLEANUP_MARGIN_DAYS} days of Claude Code's cleanup (cleanupPeriodDays ${first.days}) and not exported: ${named}${more}; run 'ccotel export' to keep them, or raise cleanupPeriodDays in Claude Code's settings.json`,
  );
  return notes;
}
