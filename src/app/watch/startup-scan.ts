// What is on disk when the daemon starts: every session under the projects
// dirs with its files' inode, size and last write, so the daemon can tell
// history from sessions in use and from sessions that changed while it was
// down. A directory it may not read is named in the log: its sessions would
// otherwise be skipped without a word.
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CliError } from '../../adapters/cli-error.js';
import type { Logger } from '../../adapters/logger.js';
import { findSessions, type SessionFiles } from '../../adapters/session-files.js';
import type { FileRecord } from './watch-state.js';

export interface ScannedSession {
  files: SessionFiles;
  /** Each file of the session as it is now. */
  current: Record<string, FileRecord>;
  /** Latest modification time of its files (ms). */
  lastWrite: number;
  /** 2.0.x agent files beside the sessions, whose owner was read from their first line. */
  flatAgents: string[];
}

const DENIED = new Set(['EACCES', 'EPERM']);

/** Logs every directory a few levels under root that cannot be listed. */
async function reportUnreadable(root: string, log: Logger, depth = 0): Promise<void> {
  let names;
  try {
    names = await readdir(root, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (DENIED.has(code))
      log.warn('cannot read a directory; the sessions in it are not watched', {
        dir: root,
        error: code,
      });
    return;
  }
  if (depth >= 3) return;
  for (const d of names)
    if (d.isDirectory() && d.name !== 'tool-results')
      await reportUnreadable(join(root, d.name), log, depth + 1);
}

export async function scanProjects(roots: string[], log: Logger): Promise<ScannedSession[]> {
  const out: ScannedSession[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    await reportUnreadable(root, log);
    let found: SessionFiles[];
    try {
      found = await findSessions(root);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      log.info('no transcripts yet under a projects dir; watching it', { dir: root });
      continue;
    }
    for (const files of found) {
      if (seen.has(files.mainFile)) continue;
      seen.add(files.mainFile);
      const paths = [files.mainFile, ...files.agentFiles.map((a) => a.file), ...files.metaFiles];
      const current: Record<string, FileRecord> = {};
      let lastWrite = 0;
      for (const p of paths) {
        const info = await stat(p).catch(() => null);
        if (info === null || !info.isFile()) continue;
        current[p] = { ino: info.ino, size: info.size };
        lastWrite = Math.max(lastWrite, info.mtimeMs);
      }
      const flatAgents = files.agentFiles
        .filter((a) => dirname(a.file) === files.projectDir)
        .map((a) => a.file);
      out.push({ files, current, lastWrite, flatAgents });
    }
  }
  return out;
}
