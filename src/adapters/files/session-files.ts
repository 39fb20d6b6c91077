// Finds sessions on disk in every layout Claude Code has used (the layouts and
// what each file name means: core/transcript-paths.ts).
// sessions-index.json is unreliable (often empty) and never consulted.
//
// The work is synchronous inside: on a projects dir of thousands of files,
// async readdir/stat calls each wait for the thread pool, which made the walk
// several times slower than the syscalls themselves. Directories are listed
// with their entry types, so a session dir is only listed when it exists (a
// failed readdir costs an Error with its stack, and most 1.0.x sessions have
// no dir). The async exports keep their signatures.
import {
  closeSync,
  openSync,
  readSync,
  readdirSync,
  statSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { UserError } from '../../core/user-error.js';
import { fileStampSync, type StampedFile } from './file-info.js';
import {
  agentIdOfFile,
  agentIdOfMeta,
  isAgentDirName,
  isTranscriptName,
  sessionIdOfName,
} from '../../core/transcript/paths.js';

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

/** One entry of a directory listing; isDir follows symlinks. */
export interface DirEntry {
  name: string;
  isDir: boolean;
}

/** Told of a dir that exists but cannot be read (a warning, not the end of the run). */
export type ProblemSink = (path: string, reason: string) => void;

/**
 * Where discovery gets its listings: the disk, or a walk done earlier (the
 * daemon lists every dir once at start-up, for its watches and its scan).
 */
export interface DirSource {
  /** Entries sorted by name; [] for a missing dir; an unreadable one is told to onProblem. */
  list(dir: string, onProblem?: ProblemSink): DirEntry[];
}

const byName = (a: DirEntry, b: DirEntry): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** stat, following symlinks; null when missing or not reachable (ENOTDIR, EACCES). */
export function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

const isDirSync = (path: string): boolean => statOrNull(path)?.isDirectory() ?? false;

/** Entries of a dir, sorted by name (throws the readdir error). */
export function readDirEntries(dir: string): DirEntry[] {
  const dirents: Dirent[] = readdirSync(dir, { withFileTypes: true });
  const out: DirEntry[] = [];
  for (const d of dirents)
    out.push({
      name: d.name,
      // Only a symlink needs a stat to know what it points to.
      isDir: d.isDirectory() || (d.isSymbolicLink() && isDirSync(join(dir, d.name))),
    });
  // Most session dirs hold one entry (subagents/).
  return out.length > 1 ? out.sort(byName) : out;
}

/**
 * What join(dir, name) puts before a plain name (one path component, as
 * readdir gives): the paths of a listing are this plus the name, without a
 * join (a normalisation of the whole path) per entry, a large share of
 * discovery over many small files.
 */
function childPrefix(dir: string): string {
  return join(dir, 'x').slice(0, -1);
}

/** Reads the disk for each listing. */
export const diskSource: DirSource = {
  list(dir, onProblem) {
    try {
      return readDirEntries(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A missing dir is simply empty; an unreadable one must be said, never silently skipped.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        onProblem?.(dir, `cannot read directory (${code ?? 'error'})`);
      return [];
    }
  },
};

// Reused by every ownerOf call: the daemon reads hundreds of flat agent files at start-up.
let ownerBuffer: Buffer | null = null;
const SESSION_ID_KEY = Buffer.from('"sessionId"');
const SESSION_ID_AT = /"sessionId"\s*:\s*"([^"]+)"/y;

/** sessionId of a 2.0.x flat agent file: its first line names the parent session. */
export function ownerOfSync(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    ownerBuffer ??= Buffer.allocUnsafe(64 * 1024);
    const buf = ownerBuffer;
    const head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
    // Only the bytes after each "sessionId" key are decoded, not the whole head read.
    for (
      let at = head.indexOf(SESSION_ID_KEY);
      at !== -1;
      at = head.indexOf(SESSION_ID_KEY, at + 1)
    ) {
      SESSION_ID_AT.lastIndex = 0;
      const match = SESSION_ID_AT.exec(head.toString('utf8', at, at + 512));
      if (match?.[1] !== undefined) return match[1];
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export async function ownerOf(file: string): Promise<string | null> {
  return ownerOfSync(file);
}

export function subagentFilesSync(
  sessionDir: string,
  source: DirSource = diskSource,
): { agents: AgentFile[]; metas: string[] } {
  const agents: AgentFile[] = [];
  const metas: string[] = [];
  // `prefix` is the dir's path as join() gives it, with a trailing separator.
  const walk = (dir: string, prefix: string, depth: number): void => {
    for (const { name, isDir } of source.list(dir)) {
      const path = prefix + name;
      const agentId = agentIdOfFile(name);
      if (agentId !== null) agents.push({ agentId, file: path });
      else if (agentIdOfMeta(name) !== null) metas.push(path);
      else if (depth < 3 && isDir && isAgentDirName(name)) walk(path, childPrefix(path), depth + 1);
    }
  };
  walk(sessionDir, childPrefix(sessionDir), 0);
  return { agents, metas };
}

export async function subagentFiles(
  sessionDir: string,
): Promise<{ agents: AgentFile[]; metas: string[] }> {
  return subagentFilesSync(sessionDir);
}

/** All sessions of one project dir. */
export function sessionsInProjectSync(
  projectDir: string,
  onProblem?: ProblemSink,
  source: DirSource = diskSource,
): SessionFiles[] {
  const entries = source.list(projectDir, onProblem);
  const subdirs = new Set<string>();
  for (const e of entries) if (e.isDir) subdirs.add(e.name);
  const flatAgents: AgentFile[] = [];
  const sessions: SessionFiles[] = [];
  const prefix = childPrefix(projectDir);
  for (const { name } of entries) {
    if (!isTranscriptName(name)) continue;
    const agentId = name.startsWith('agent-') ? agentIdOfFile(name) : null;
    if (agentId !== null) {
      flatAgents.push({ agentId, file: prefix + name });
      continue;
    }
    const sessionId = sessionIdOfName(name);
    // 2.1.x: the session's sub-agents live in a dir named after it, when there is one.
    const { agents, metas } = subdirs.has(sessionId)
      ? subagentFilesSync(prefix + sessionId, source)
      : { agents: [], metas: [] };
    sessions.push({
      sessionId,
      projectDir,
      mainFile: prefix + name,
      agentFiles: agents,
      metaFiles: metas,
    });
  }
  if (flatAgents.length > 0) {
    const byId = new Map(sessions.map((s) => [s.sessionId, s]));
    for (const agent of flatAgents) {
      const owner = ownerOfSync(agent.file);
      if (owner !== null) byId.get(owner)?.agentFiles.push(agent);
    }
  }
  return sessions;
}

/** All sessions of one project dir. */
export async function sessionsInProject(
  projectDir: string,
  onProblem?: ProblemSink,
): Promise<SessionFiles[]> {
  return sessionsInProjectSync(projectDir, onProblem);
}

/**
 * The session a 2.1.x session dir (<proj>/<sid>/, holding subagents/) belongs
 * to: the one whose transcript <proj>/<sid>.jsonl sits beside it.
 */
function sessionOfDir(dir: string, source: DirSource): SessionFiles | null {
  const sessionId = basename(dir);
  const projectDir = dirname(dir);
  if (statOrNull(join(projectDir, `${sessionId}.jsonl`))?.isFile() !== true) return null;
  return (
    sessionsInProjectSync(projectDir, undefined, source).find((s) => s.sessionId === sessionId) ??
    null
  );
}

/**
 * Sessions under a path: a transcript file, a session dir, a project dir, or a
 * projects root (a dir of project dirs). Throws a UserError (not-found) when the path has none.
 */
export function findSessionsSync(
  path: string,
  onProblem?: ProblemSink,
  source: DirSource = diskSource,
): SessionFiles[] {
  const info = statOrNull(path);
  if (info === null) throw new UserError(`no such file or directory: ${path}`, 'not-found');
  if (info.isFile()) {
    const name = basename(path);
    if (!name.endsWith('.jsonl'))
      throw new UserError(`not a transcript (.jsonl): ${path}`, 'not-found');
    const inProject = sessionsInProjectSync(dirname(path), undefined, source);
    // Compared resolved: `./p/s.jsonl`, `p//s.jsonl` or, on Windows, `D:/p/s.jsonl` is the same
    // transcript, and its sub-agents are found only through its session.
    const found = inProject.find((s) => resolve(s.mainFile) === resolve(path));
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
  const ofSessionDir = sessionOfDir(path, source);
  if (ofSessionDir !== null) return [ofSessionDir];
  const direct = sessionsInProjectSync(path, onProblem, source);
  if (direct.length > 0) return direct;
  const nested: SessionFiles[] = [];
  let unreadable = 0;
  const count: ProblemSink = (p, reason) => {
    unreadable += 1;
    onProblem?.(p, reason);
  };
  for (const { name, isDir } of source.list(path, count))
    if (isDir) nested.push(...sessionsInProjectSync(join(path, name), count, source));
  if (nested.length === 0 && unreadable === 0)
    throw new UserError(`no Claude Code transcripts (*.jsonl) found under ${path}`, 'not-found');
  return nested;
}

/**
 * Sessions under a path: a transcript file, a project dir, or a projects root
 * (a dir of project dirs). Rejects with a UserError (not-found) when the path has none.
 */
export async function findSessions(path: string, onProblem?: ProblemSink): Promise<SessionFiles[]> {
  return findSessionsSync(path, onProblem);
}

/** A session id looked up under a projects root. */
export async function findSessionById(
  projectsRoot: string,
  sessionId: string,
): Promise<SessionFiles> {
  for (const { name, isDir } of diskSource.list(projectsRoot)) {
    if (!isDir) continue;
    const dir = join(projectsRoot, name);
    if (statOrNull(join(dir, `${sessionId}.jsonl`))?.isFile() === true) {
      const found = sessionsInProjectSync(dir).find((s) => s.sessionId === sessionId);
      if (found !== undefined) return found;
    }
  }
  throw new UserError(`session ${sessionId} not found under ${projectsRoot}`, 'not-found');
}

/** Sessions under a projects root whose id starts with `prefix` (a shortened id). */
export function findSessionsByIdPrefix(projectsRoot: string, prefix: string): SessionFiles[] {
  const lower = prefix.toLowerCase();
  const found: SessionFiles[] = [];
  for (const { name, isDir } of diskSource.list(projectsRoot)) {
    if (!isDir) continue;
    const dir = join(projectsRoot, name);
    const named = diskSource
      .list(dir)
      .some((e) => !e.isDir && e.name.toLowerCase().startsWith(lower) && e.name.endsWith('.jsonl'));
    if (!named) continue;
    for (const s of sessionsInProjectSync(dir))
      if (s.sessionId.toLowerCase().startsWith(lower)) found.push(s);
  }
  return found;
}

/**
 * Every file of the session as stamped now, main file first, each path
 * relative to the project dir (absolute if outside it); null when one is missing.
 */
export function stampSession(files: SessionFiles): StampedFile[] | null {
  const paths = [files.mainFile, ...files.agentFiles.map((a) => a.file), ...files.metaFiles];
  const base = dirname(files.mainFile) + sep;
  const stamps: StampedFile[] = [];
  for (const path of paths) {
    const s = fileStampSync(path);
    if (s === null) return null;
    const name = path.startsWith(base) ? path.slice(base.length) : path;
    stamps.push([name, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs]);
  }
  return stamps;
}
