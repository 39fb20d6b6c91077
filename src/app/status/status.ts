// `ccotel status`: which recent sessions are working, waiting for you, failed
// or were interrupted — read from the transcripts alone (no daemon), each main
// file streamed once through the session reader (read-session's foldFile
// into step()), whose live state is the answer.
import { basename, join, resolve } from 'node:path';
import { sessionsInProject, type SessionFiles } from '../../adapters/files/session-files.js';
import { fileInfo, isDirectory, listNames } from '../../adapters/files/file-info.js';
import { UserError } from '../../core/user-error.js';
import type { ParseOptions } from '../../core/transcript/parse-record.js';
import type { ReadWarning } from '../../core/view/waterfall-row.js';
import { cwdFromProjectDirName } from '../../core/transcript/project-dir-name.js';
import { wholeSession } from '../../core/model/assemble/finish.js';
import { createSessionState, type SessionState } from '../../core/session/state.js';
import { createSessionReader } from '../../core/session/reader.js';
import { statusOf, type LiveState } from '../../core/session/live-status.js';
import { foldFile } from '../read/read-session.js';
import { renderStatusJson, renderStatusTable } from './status-view.js';
import { cleanupWarnings } from '../export/cleanup-warning.js';

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
  /** Malformed lines and unknown record types of the files read for this row. */
  warnings: ReadWarning[];
}

export interface StatusResult {
  stdout: string;
  /** One-line notes for stderr (unreadable files, missing dirs). */
  notes: string[];
  /** Read warnings of the sessions listed, in their order (for stderr, as export prints them). */
  warnings: ReadWarning[];
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

/**
 * The live state reads prompts, markers and tool ids only: no tool result or
 * answer text is kept, and user text (prompt and marker tests) is clipped.
 */
const STATUS_PARSE: ParseOptions = { textLimit: 256, keepTexts: false };

/**
 * Records step() keeps for finish(), which status never calls: dropped once
 * this many are held, so a session of any size is read in bounded memory.
 */
const RECORDS_HELD = 1_000;

/** Feeds one file; a file that vanished or cannot be read is reported, as any other error. */
async function feedFile(state: SessionState, file: string, agentId: string | null): Promise<void> {
  const warned = state.warnings.length;
  // Malformed and unknown lines fail only themselves (the last, unterminated
  // line is not even handed over: it is still being written).
  await foldFile(
    createSessionReader(state, wholeSession()),
    file,
    agentId,
    STATUS_PARSE,
    RECORDS_HELD,
  );
  const unreadable = state.warnings.slice(warned).find((w) => w.file === file && w.line === 0);
  if (unreadable !== undefined) throw new Error(unreadable.reason);
}

/**
 * A main thread waiting on a sub-agent is quiet while the agent works in its own
 * file: those files may only move lastActivity (never the state). Only files
 * written after the main file's last event can move it, so the rest are skipped.
 */
async function addAgentActivity(state: SessionState, files: SessionFiles): Promise<void> {
  for (const agent of files.agentFiles) {
    const mtime = (await fileInfo(agent.file))?.mtimeMs;
    const last = state.live.lastActivity;
    if (mtime === undefined || (last !== null && mtime <= last)) continue;
    await feedFile(state, agent.file, agent.agentId);
  }
}

async function readSession(
  files: SessionFiles,
  options: StatusCommandOptions,
): Promise<SessionStatusRow | null> {
  const state = createSessionState(files.sessionId, files.mainFile);
  await feedFile(state, files.mainFile, null);
  if (state.live.state === 'working') await addAgentActivity(state, files);
  const snap = statusOf(state.live, options.now, { staleAfterMs: options.staleAfterMs });
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
    // Unreadable files (line 0) were thrown by feedFile: what is left are bad lines.
    warnings: state.warnings,
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
  return { stdout, notes, warnings: rows.flatMap((r) => r.warnings) };
}
