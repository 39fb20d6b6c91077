// Finds sessions on disk in every layout Claude Code has used:
//   1.0.x  <proj>/<sid>.jsonl with inline sidechains
//   2.0.x  <proj>/agent-<id>.jsonl beside the sessions (owner read from its sessionId)
//   2.1.x  <proj>/<sid>/subagents/agent-<id>.jsonl (+ .meta.json, + workflows/wf_*/)
// sessions-index.json is unreliable (often empty) and never consulted.
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from './cli-error.js';

export interface AgentFile {
  agentId: string;
  file: string;
}

export interface SessionFiles {
  sessionId: string;
  projectDir: string;
  mainFile: string;
  agentFiles: AgentFile[];
  metaFiles: string[];
}

const AGENT_FILE = /^agent-(.+)\.jsonl$/;
const META_FILE = /^agent-(.+)\.meta\.json$/;

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** Told of a dir that exists but cannot be read (a warning, not the end of the run). */
export type ProblemSink = (path: string, reason: string) => void;

async function list(dir: string, onProblem?: ProblemSink): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A missing dir is simply empty; an unreadable one must be said, never silently skipped.
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      onProblem?.(dir, `cannot read directory (${code ?? 'error'})`);
    return [];
  }
}

/** sessionId of a 2.0.x flat agent file: its first line names the parent session. */
export async function ownerOf(file: string): Promise<string | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (handle === null) return null;
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const match = /"sessionId"\s*:\s*"([^"]+)"/.exec(buf.toString('utf8', 0, bytesRead));
    return match?.[1] ?? null;
  } finally {
    await handle.close();
  }
}

export async function subagentFiles(
  sessionDir: string,
): Promise<{ agents: AgentFile[]; metas: string[] }> {
  const agents: AgentFile[] = [];
  const metas: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const name of await list(dir)) {
      const path = join(dir, name);
      const agent = AGENT_FILE.exec(name);
      if (agent?.[1] !== undefined) agents.push({ agentId: agent[1], file: path });
      else if (META_FILE.test(name)) metas.push(path);
      else if (
        depth < 3 &&
        (name === 'subagents' || name === 'workflows' || name.startsWith('wf_')) &&
        (await isDir(path))
      ) {
        await walk(path, depth + 1);
      }
    }
  };
  await walk(sessionDir, 0);
  return { agents, metas };
}

/** All sessions of one project dir. */
export async function sessionsInProject(
  projectDir: string,
  onProblem?: ProblemSink,
): Promise<SessionFiles[]> {
  const names = await list(projectDir, onProblem);
  const flatAgents: AgentFile[] = [];
  const sessions: SessionFiles[] = [];
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const agent = AGENT_FILE.exec(name);
    if (agent?.[1] !== undefined) {
      flatAgents.push({ agentId: agent[1], file: join(projectDir, name) });
      continue;
    }
    const sessionId = name.slice(0, -'.jsonl'.length);
    const { agents, metas } = await subagentFiles(join(projectDir, sessionId));
    sessions.push({
      sessionId,
      projectDir,
      mainFile: join(projectDir, name),
      agentFiles: agents,
      metaFiles: metas,
    });
  }
  if (flatAgents.length > 0) {
    const byId = new Map(sessions.map((s) => [s.sessionId, s]));
    for (const agent of flatAgents) {
      const owner = await ownerOf(agent.file);
      if (owner !== null) byId.get(owner)?.agentFiles.push(agent);
    }
  }
  return sessions;
}

/**
 * Sessions under a path: a transcript file, a project dir, or a projects root
 * (a dir of project dirs). Throws a CliError when the path has none.
 */
export async function findSessions(path: string, onProblem?: ProblemSink): Promise<SessionFiles[]> {
  const info = await stat(path).catch(() => null);
  if (info === null) throw new CliError(`no such file or directory: ${path}`, 3);
  if (info.isFile()) {
    const name = basename(path);
    if (!name.endsWith('.jsonl')) throw new CliError(`not a transcript (.jsonl): ${path}`, 3);
    const inProject = await sessionsInProject(dirname(path));
    const found = inProject.find((s) => s.mainFile === path);
    if (found !== undefined) return [found];
    return [
      {
        sessionId: name.replace(/\.jsonl$/, ''),
        projectDir: dirname(path),
        mainFile: path,
        agentFiles: [],
        metaFiles: [],
      },
    ];
  }
  const direct = await sessionsInProject(path, onProblem);
  if (direct.length > 0) return direct;
  const nested: SessionFiles[] = [];
  let unreadable = 0;
  const count: ProblemSink = (p, reason) => {
    unreadable += 1;
    onProblem?.(p, reason);
  };
  for (const name of await list(path, count)) {
    const sub = join(path, name);
    if (await isDir(sub)) nested.push(...(await sessionsInProject(sub, count)));
  }
  if (nested.length === 0 && unreadable === 0)
    throw new CliError(`no Claude Code transcripts (*.jsonl) found under ${path}`, 3);
  return nested;
}

/** A session id looked up under a projects root. */
export async function findSessionById(
  projectsRoot: string,
  sessionId: string,
): Promise<SessionFiles> {
  for (const name of await list(projectsRoot)) {
    const dir = join(projectsRoot, name);
    const candidate = join(dir, `${sessionId}.jsonl`);
    if ((await stat(candidate).catch(() => null))?.isFile() === true) {
      const found = (await sessionsInProject(dir)).find((s) => s.sessionId === sessionId);
      if (found !== undefined) return found;
    }
  }
  throw new CliError(`session ${sessionId} not found under ${projectsRoot}`, 3);
}
