// Reads one session's files (main, sub-agents, meta sidecars) through the core
// reducer. Used by show, export and status; the daemon feeds the same reducer.
import { readFileSync } from 'node:fs';
import { parseRecord, type ParseOptions } from '../core/parse-record.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type SessionState,
} from '../core/session-state.js';
import type { SessionFiles } from '../adapters/session-files.js';
import { readLines } from '../adapters/read-lines.js';
import { parseAgentMeta } from '../core/agent-meta.js';

export interface LoadedSession {
  state: SessionState;
  /** Files whose last line is still being written (not consumed). */
  unterminated: string[];
}

/** Errors that make one file unreadable without making the session so. */
const FILE_GONE = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR']);

async function feed(
  state: SessionState,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
): Promise<boolean> {
  try {
    return await feedFile(state, file, agentId, parse);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Claude Code deletes old transcripts itself; one vanished file must not stop a run.
    if (code === undefined || !FILE_GONE.has(code)) throw err;
    state.warnings.push({
      file,
      line: 0,
      reason:
        code === 'ENOENT' ? 'file disappeared while being read' : `cannot read file (${code})`,
    });
    return false;
  }
}

async function feedFile(
  state: SessionState,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
): Promise<boolean> {
  const source = { file, agentId };
  const result = await readLines(file, (lines) => {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      step(state, source, line.number, parseRecord(line.text, parse));
    }
  });
  return result.pendingBytes > 0;
}

/** A sidecar's text, or null when it cannot be read. */
function readSidecar(file: string): string | null {
  try {
    // A few hundred bytes: a sync read costs less than the thread-pool round trips of an async one.
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export async function loadSession(
  files: SessionFiles,
  parse: ParseOptions = {},
): Promise<LoadedSession> {
  const state = createSessionState(files.sessionId, files.mainFile);
  const unterminated: string[] = [];
  for (const meta of files.metaFiles) {
    const text = readSidecar(meta);
    const parsed = text === null ? null : parseAgentMeta(meta, text);
    if (parsed === null)
      state.warnings.push({ file: meta, line: 1, reason: 'unreadable agent meta file' });
    else addAgentMeta(state, parsed);
  }
  for (const agent of files.agentFiles) registerAgentFile(state, agent.agentId, agent.file);
  if (await feed(state, files.mainFile, null, parse)) unterminated.push(files.mainFile);
  for (const agent of files.agentFiles) {
    if (await feed(state, agent.file, agent.agentId, parse)) unterminated.push(agent.file);
  }
  return { state, unterminated };
}
