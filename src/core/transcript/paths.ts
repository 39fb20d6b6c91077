// What a path under a projects dir is, in every layout Claude Code has used:
//   1.0.x  <proj>/<sid>.jsonl with inline sidechains
//   2.0.x  <proj>/agent-<id>.jsonl beside the sessions (owner read from its first line)
//   2.1.x  <proj>/<sid>/subagents/agent-<id>.jsonl (+ .meta.json, + workflows/wf_*/)
// Discovery (adapters/session-files.ts) and the daemon's file events
// (app/watch) both ask here, so a new layout is taught once. Paths are only
// taken apart as strings: nothing here touches the disk.
import { basename, dirname, join, sep } from 'node:path';

/** `agent-<id>.jsonl`: a sub-agent transcript (2.0.x beside the sessions, 2.1.x under subagents/). */
export const AGENT_FILE = /^agent-(.+)\.jsonl$/;
/** `agent-<id>.meta.json`: a 2.1.x sub-agent's sidecar (type, description, spawning call). */
export const META_FILE = /^agent-(.+)\.meta\.json$/;

/** The agentId named by a sub-agent file name, or null. */
export const agentIdOfFile = (name: string): string | null => AGENT_FILE.exec(name)?.[1] ?? null;
/** The agentId named by a meta sidecar's file name, or null. */
export const agentIdOfMeta = (name: string): string | null => META_FILE.exec(name)?.[1] ?? null;

/** A `.jsonl` file name: a session's main transcript unless it is an agent file. */
export const isTranscriptName = (name: string): boolean => name.endsWith('.jsonl');

/** The session id a main transcript's file name carries. */
export const sessionIdOfName = (name: string): string => name.slice(0, -'.jsonl'.length);

/** Dirs in a session dir that hold its sub-agents: subagents, workflows and wf_<id> (2.1.x). */
export const isAgentDirName = (name: string): boolean =>
  name === 'subagents' || name === 'workflows' || name.startsWith('wf_');

export type FileKind =
  | { kind: 'main'; sessionKey: string; sessionId: string }
  | { kind: 'agent'; sessionKey: string; sessionId: string; agentId: string }
  | { kind: 'meta'; sessionKey: string; sessionId: string; agentId: string }
  | { kind: 'flat-agent'; projectDir: string; agentId: string };

/**
 * Sessions are keyed by their main file's path, which exists in name before
 * the file does (a sub-agent file can be seen first).
 */
export const sessionKeyOf = (projectDir: string, sessionId: string): string =>
  join(projectDir, `${sessionId}.jsonl`);

/**
 * What a path is, or null for anything else (a workflow's journal, tool
 * results, the sessions index). `root` is the projects dir the path was found
 * under (or a project dir itself). A 2.0.x flat agent file's session is only
 * known from its first line, so it comes back without one.
 */
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
  if (!isTranscriptName(name) || depth > 2) return null;
  const flat = agentIdOfFile(name);
  if (flat !== null) return { kind: 'flat-agent', projectDir: dirname(path), agentId: flat };
  return { kind: 'main', sessionKey: path, sessionId: sessionIdOfName(name) };
}

export type FileRole = 'main' | 'agent' | 'meta';

/**
 * The part a file known to belong to the session keyed `sessionKey` plays in
 * it. An agent file whose name carries no id is keyed by its name.
 */
export function roleOfPath(
  path: string,
  sessionKey: string,
): { role: FileRole; agentId: string | null } {
  if (path === sessionKey) return { role: 'main', agentId: null };
  const name = basename(path);
  const meta = agentIdOfMeta(name);
  if (meta !== null) return { role: 'meta', agentId: meta };
  return { role: 'agent', agentId: agentIdOfFile(name) ?? name };
}

/** Whether path is dir or lies under it. */
export const isUnder = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir + sep);
