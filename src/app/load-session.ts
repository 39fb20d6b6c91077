// Reads one session's files (main, sub-agents, meta sidecars) through the core
// reducer. Used by show, export and status; the daemon feeds the same reducer.
import { parseRecord, type ParseOptions, type ParseOutcome } from '../core/parse-record.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type SessionState,
} from '../core/session-state.js';
import type { SessionFiles } from '../adapters/session-files.js';
import { readLines } from '../adapters/read-lines.js';
import type { Line } from '../core/line-splitter.js';
import { parseAgentMeta } from '../core/agent-meta.js';
import { readSmallFileSync } from '../adapters/file-info.js';

export interface LoadedSession {
  state: SessionState;
  /** Files whose last line is still being written (not consumed). */
  unterminated: string[];
  /** For each of those files, the number of that unfinished last line. */
  unterminatedLine: Map<string, number>;
}

/** Errors that make one file unreadable without making the session so. */
const FILE_GONE = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR']);

/**
 * An error from the caller's hook, carried past the unreadable-file handling:
 * an export failing to write its --out file (EACCES) is no transcript that
 * disappeared.
 */
class HookError extends Error {
  constructor(readonly original: unknown) {
    super('error in a reader hook');
  }
}

/**
 * Feeds one file's lines into the state. Returns the number of its last line
 * when that line is unterminated (not consumed), else 0.
 */
export async function feed(
  state: SessionState,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
  before?: BeforeRecord,
): Promise<number> {
  try {
    return await feedFile(state, file, agentId, parse, before);
  } catch (err) {
    if (err instanceof HookError) throw err.original;
    const code = (err as NodeJS.ErrnoException).code;
    // Claude Code deletes old transcripts itself; one vanished file must not stop a run.
    if (code === undefined || !FILE_GONE.has(code)) throw err;
    state.warnings.push({
      file,
      line: 0,
      reason:
        code === 'ENOENT' ? 'file disappeared while being read' : `cannot read file (${code})`,
    });
    return 0;
  }
}

/**
 * Before a record is folded in: a reader of a session in segments closes one
 * here (session-segments.ts). Returns nothing, or a promise to wait for.
 */
export type BeforeRecord = (outcome: ParseOutcome) => void | Promise<void>;

async function feedFile(
  state: SessionState,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
  before?: BeforeRecord,
): Promise<number> {
  const source = { file, agentId };
  const fold = (lines: Line[]): void => {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      step(state, source, line.number, parseRecord(line.text, parse));
    }
  };
  const foldWaiting = async (lines: Line[]): Promise<void> => {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      const outcome = parseRecord(line.text, parse);
      // Most records need no wait: awaiting only real promises spares a microtask per line.
      let waiting: void | Promise<void>;
      try {
        waiting = before?.(outcome);
        if (waiting !== undefined) await waiting;
      } catch (err) {
        throw new HookError(err);
      }
      step(state, source, line.number, outcome);
    }
  };
  const result = await readLines(file, before === undefined ? fold : foldWaiting);
  return result.pendingBytes > 0 ? result.nextLine : 0;
}

/** A session's state with its meta sidecars read and its agent files registered. */
export function openSession(files: SessionFiles): SessionState {
  const state = createSessionState(files.sessionId, files.mainFile);
  for (const meta of files.metaFiles) {
    const text = readSmallFileSync(meta);
    const parsed = text === null ? null : parseAgentMeta(meta, text);
    if (parsed === null)
      state.warnings.push({ file: meta, line: 1, reason: 'unreadable agent meta file' });
    else addAgentMeta(state, parsed);
  }
  for (const agent of files.agentFiles) registerAgentFile(state, agent.agentId, agent.file);
  return state;
}

export async function loadSession(
  files: SessionFiles,
  parse: ParseOptions = {},
): Promise<LoadedSession> {
  const state = openSession(files);
  const unterminatedLine = new Map<string, number>();
  const mainLine = await feed(state, files.mainFile, null, parse);
  if (mainLine > 0) unterminatedLine.set(files.mainFile, mainLine);
  for (const agent of files.agentFiles) {
    const line = await feed(state, agent.file, agent.agentId, parse);
    if (line > 0) unterminatedLine.set(agent.file, line);
  }
  return { state, unterminated: [...unterminatedLine.keys()], unterminatedLine };
}
