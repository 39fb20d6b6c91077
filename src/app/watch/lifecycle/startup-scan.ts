// What is on disk when the daemon starts: every session under the projects
// dirs with its files' inode, size and last write, so the daemon can tell
// history from sessions in use and from sessions that changed while it was
// down. A directory it may not read is named in the log: its sessions would
// otherwise be skipped without a word.
//
// It works from the listing of the start-up walk (the one that set up the
// watches), so the dirs are listed once, and it is synchronous: on 10,000 files
// a stat each through the thread pool took longer than the stats themselves.
import { dirname } from 'node:path';
import { UserError } from '../../../core/user-error.js';
import type { DirListing } from '../../../adapters/files/dir-walk.js';
import type { Logger } from '../../../adapters/logger.js';
import {
  findSessionsSync,
  statOrNull,
  type SessionFiles,
} from '../../../adapters/files/session-files.js';
import type { FileRecord } from '../state/watch-state.js';

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

export function scanProjects(roots: string[], listing: DirListing, log: Logger): ScannedSession[] {
  for (const [dir, code] of listing.unreadable)
    if (DENIED.has(code))
      log.warn('cannot read a directory; the sessions in it are not watched', {
        dir,
        error: code,
      });
  const out: ScannedSession[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    let found: SessionFiles[];
    try {
      found = findSessionsSync(root, undefined, listing);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      log.info('no transcripts yet under a projects dir; watching it', { dir: root });
      continue;
    }
    for (const files of found) {
      if (seen.has(files.mainFile)) continue;
      seen.add(files.mainFile);
      const current: Record<string, FileRecord> = {};
      let lastWrite = 0;
      const note = (p: string): void => {
        const info = statOrNull(p);
        if (info === null || !info.isFile()) return;
        current[p] = { ino: info.ino, size: info.size };
        lastWrite = Math.max(lastWrite, info.mtimeMs);
      };
      note(files.mainFile);
      for (const a of files.agentFiles) note(a.file);
      for (const m of files.metaFiles) note(m);
      const flatAgents = files.agentFiles
        .filter((a) => dirname(a.file) === files.projectDir)
        .map((a) => a.file);
      out.push({ files, current, lastWrite, flatAgents });
    }
  }
  return out;
}
