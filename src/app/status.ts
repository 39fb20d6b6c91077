// `ccotel status`: which recent sessions are working, waiting for you, failed
// or were interrupted — read from the transcripts alone (no daemon), each main
// file streamed once through the live-state reducer.
import { basename, join, resolve } from 'node:path';
import { sessionsInProject, type SessionFiles } from '../adapters/session-files.js';
import { readLines } from '../adapters/read-lines.js';
import { fileInfo, isDirectory, listNames } from '../adapters/file-info.js';
import { UserError } from '../core/user-error.js';
import { parseRecord } from '../core/parse-record.js';
import { cwdFromProjectDirName } from '../core/project-dir-name.js';
import {
  initialStatus,
  stepStatus,
  statusOf,
  type LiveState,
  type LiveStatus,
} from '../core/session-status.js';
import { renderStatusJson, renderStatusTable } from './status-view.js';
import { cleanupWarnings } from './cleanup-warning.js';

export interface StatusCommandOptions {
  projectsDirs: string[];
  /** Only sessions whose last event is at most this many hours before `now`. */
  hours: number;
  now: number;
  staleAfterMs: number;
  format: 'table' | 'json';
  /** Where export state is: given, sessions close to Claude Code's cleanup are warned of. */
  stateDir?: string;
}

export interface SessionStatusRow {
  sessionId: string;
  /** cwd from the records, else the project dir's name (a lossy encoding of it). */
  project: string;
  cwd: string | null;
  state: LiveState;
  stale: boolean;
  retrying: boolean;
  errorType: string | null;
  lastActivity: number;
  lastPromptAt: number | null;
  openToolCalls: { id: string; name: string }[];
  gitBranch: string | null;
  version: string | null;
  file: string;
}

export interface StatusResult {
  stdout: string;
  /** One-line notes for stderr (unreadable files, missing dirs). */
  notes: string[];
}

/** Sessions of a projects root, or of a single project dir given instead. */
async function sessionsUnder(root: string): Promise<SessionFiles[]> {
  const direct = await sessionsInProject(root);
  if (direct.length > 0) return direct;
  const all: SessionFiles[] = [];
  for (const name of await listNames(root)) {
    const dir = join(root, name);
    if (await isDirectory(dir)) all.push(...(await sessionsInProject(dir)));
  }
  return all;
}

/** A Windows-side project's cwd read from its dir name (C--Users-…), for transcripts without one. */
const projectCwd = (files: SessionFiles): string | null =>
  cwdFromProjectDirName(basename(files.projectDir));

async function feed(status: LiveStatus, file: string, fromAgentFile: boolean): Promise<void> {
  await readLines(file, (lines) => {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      // Malformed and unknown lines fail only themselves (the last, unterminated
      // line is not even handed over: it is still being written).
      const parsed = parseRecord(line.text, { textLimit: 256 });
      if (parsed.kind === 'record') stepStatus(status, parsed.record, fromAgentFile);
    }
  });
}

/**
 * A main thread waiting on a sub-agent is quiet while the agent works in its own
 * file: those files may only move lastActivity (never the state). Only files
 * written after the main file's last event can move it, so the rest are skipped.
 */
async function addAgentActivity(status: LiveStatus, files: SessionFiles): Promise<void> {
  for (const agent of files.agentFiles) {
    const mtime = (await fileInfo(agent.file))?.mtimeMs;
    if (mtime === undefined || (status.lastActivity !== null && mtime <= status.lastActivity))
      continue;
    await feed(status, agent.file, true);
  }
}

async function readSession(
  files: SessionFiles,
  options: StatusCommandOptions,
): Promise<SessionStatusRow | null> {
  const status = initialStatus();
  await feed(status, files.mainFile, false);
  if (status.state === 'working') await addAgentActivity(status, files);
  const snap = statusOf(status, options.now, { staleAfterMs: options.staleAfterMs });
  // Activity is judged by event time; a file without any cannot be shown as recent.
  if (snap.lastActivity === null || snap.lastActivity < options.now - options.hours * 3_600_000)
    return null;
  return {
    sessionId: files.sessionId,
    project: snap.cwd ?? projectCwd(files) ?? basename(files.projectDir),
    cwd: snap.cwd ?? projectCwd(files),
    state: snap.state,
    stale: snap.stale,
    retrying: snap.retrying,
    errorType: snap.errorType,
    lastActivity: snap.lastActivity,
    lastPromptAt: snap.lastPromptAt,
    openToolCalls: snap.openToolCalls,
    gitBranch: snap.gitBranch,
    version: snap.version,
    file: resolve(files.mainFile),
  };
}

export async function collectStatus(
  options: StatusCommandOptions,
): Promise<{ rows: SessionStatusRow[]; notes: string[] }> {
  const notes: string[] = [];
  const cutoff = options.now - options.hours * 3_600_000;
  const rows: SessionStatusRow[] = [];
  let roots = 0;
  for (const root of options.projectsDirs) {
    if (!(await isDirectory(root))) {
      notes.push(`${root}: no such directory`);
      continue;
    }
    roots++;
    for (const files of await sessionsUnder(root)) {
      // mtime is only a cheap pre-filter: the last write is never before the last event.
      const info = await fileInfo(files.mainFile);
      if (info === null || info.mtimeMs < cutoff) continue;
      try {
        const row = await readSession(files, options);
        if (row !== null) rows.push(row);
      } catch (err) {
        notes.push(`${files.mainFile}: unreadable (${(err as Error).message.split('\n')[0]})`);
      }
    }
  }
  if (roots === 0)
    throw new UserError(
      `no projects directory found (${options.projectsDirs.join(', ')})`,
      'not-found',
    );
  rows.sort((a, b) => b.lastActivity - a.lastActivity || a.file.localeCompare(b.file));
  return { rows, notes };
}

export async function status(options: StatusCommandOptions): Promise<StatusResult> {
  const { rows, notes } = await collectStatus(options);
  if (options.stateDir !== undefined) {
    const { projectsDirs: roots, stateDir, now } = options;
    notes.push(...(await cleanupWarnings({ roots, stateDir, now })));
  }
  const stdout =
    options.format === 'json'
      ? renderStatusJson(rows)
      : renderStatusTable(rows, options.now, options.hours);
  return { stdout, notes };
}
