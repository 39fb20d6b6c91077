// What a path under a projects dir is, in every layout Claude Code has used
// (see adapters/session-files.ts): a session's main file, a 2.1.x sub-agent
// file or meta sidecar under <sid>/subagents/ (workflows included), or a
// 2.0.x flat agent file whose owner is only known from its first line.
// Sessions are keyed by their main file's path, which exists in name before
// the file does (a sub-agent file can be seen first).
import { basename, dirname, join, sep } from 'node:path';
import { agentIdOfFile, agentIdOfMeta } from '../../core/turn-lifecycle.js';

export type FileKind =
  | { kind: 'main'; sessionKey: string; sessionId: string }
  | { kind: 'agent'; sessionKey: string; sessionId: string; agentId: string }
  | { kind: 'meta'; sessionKey: string; sessionId: string; agentId: string }
  | { kind: 'flat-agent'; projectDir: string; agentId: string };

export const sessionKeyOf = (projectDir: string, sessionId: string): string =>
  join(projectDir, `${sessionId}.jsonl`);

/** `root` is the projects dir the path was found under (or a project dir itself). */
export function classifyPath(path: string, root: string): FileKind | null {
  const name = basename(path);
  const parts = path.split(sep);
  const depth = path
    .slice(root.length)
    .split(sep)
    .filter((p) => p !== '').length;
  const sub = parts.lastIndexOf('subagents');
  if (sub >= 2) {
    const sessionId = parts[sub - 1] ?? '';
    const projectDir = parts.slice(0, sub - 1).join(sep) || sep;
    const sessionKey = sessionKeyOf(projectDir, sessionId);
    const agent = agentIdOfFile(name);
    if (agent !== null) return { kind: 'agent', sessionKey, sessionId, agentId: agent };
    const meta = agentIdOfMeta(name);
    if (meta !== null) return { kind: 'meta', sessionKey, sessionId, agentId: meta };
    return null;
  }
  // Main and flat agent files sit directly in a project dir (or in the root itself).
  if (!name.endsWith('.jsonl') || depth > 2) return null;
  const flat = agentIdOfFile(name);
  if (flat !== null) return { kind: 'flat-agent', projectDir: dirname(path), agentId: flat };
  const sessionId = name.slice(0, -'.jsonl'.length);
  return { kind: 'main', sessionKey: path, sessionId };
}

/** Directories never holding transcripts (large tool outputs spilled to disk). */
const SKIPPED_DIRS = new Set(['tool-results', 'node_modules', '.git']);

/**
 * Filter for the directory watcher: every directory up to a few levels below a
 * root (project, session, subagents, workflows/wf_*), and only transcript and
 * sidecar files.
 */
export function isWatchedPath(path: string, isDir: boolean | undefined, root: string): boolean {
  const depth = path
    .slice(root.length)
    .split(sep)
    .filter((p) => p !== '').length;
  const name = basename(path);
  if (isDir === true) return depth <= 5 && !SKIPPED_DIRS.has(name);
  if (isDir === false) return classifyPath(path, root) !== null;
  // Unknown (the dir watcher always knows; a caller that cannot tell): let it
  // through unless it clearly is neither.
  return !SKIPPED_DIRS.has(name) && depth <= 6;
}
