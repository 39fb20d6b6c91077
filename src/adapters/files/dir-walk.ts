// One synchronous walk of the projects dirs, kept as a listing: the daemon
// lists every directory once at start-up, for its watches (dir-watcher) and for
// its scan of the sessions (session-files over this listing instead of the
// disk). Synchronous on purpose: an async readdir waits for the thread pool far
// longer than the syscall takes, and nothing else runs during start-up.
import { join } from 'node:path';
import {
  diskSource,
  readDirEntries,
  type DirEntry,
  type DirSource,
  type ProblemSink,
} from './session-files.js';

export interface WalkOptions {
  /** Whether to descend into a directory found under a root. */
  wantDir(path: string): boolean;
  /** Called before a directory is listed (a watch started here misses nothing listed after). */
  beforeList?(dir: string): void;
}

/** The directories a walk listed; dirs it did not reach are read from disk. */
export class DirListing implements DirSource {
  private readonly dirs = new Map<string, DirEntry[]>();
  /** Directories that exist but could not be listed, with the error code. */
  readonly unreadable = new Map<string, string>();

  get size(): number {
    return this.dirs.size;
  }

  has(dir: string): boolean {
    return this.dirs.has(dir) || this.unreadable.has(dir);
  }

  set(dir: string, entries: DirEntry[]): void {
    this.dirs.set(dir, entries);
  }

  entries(): IterableIterator<[string, DirEntry[]]> {
    return this.dirs.entries();
  }

  list(dir: string, onProblem?: ProblemSink): DirEntry[] {
    const known = this.dirs.get(dir);
    if (known !== undefined) return known;
    const code = this.unreadable.get(dir);
    if (code === undefined) return diskSource.list(dir, onProblem);
    onProblem?.(dir, `cannot read directory (${code})`);
    return [];
  }
}

/** Lists every wanted directory under each root (roots that are not directories are skipped). */
export function walkDirs(
  roots: string[],
  options: WalkOptions,
  into = new DirListing(),
): DirListing {
  const visit = (dir: string): void => {
    // Nested roots, or a symlink back up (the depth limit of wantDir ends any loop).
    if (into.has(dir)) return;
    options.beforeList?.(dir);
    let entries: DirEntry[];
    try {
      entries = readDirEntries(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      // Gone or not a directory: nothing to list. Anything else is said by the caller.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') into.unreadable.set(dir, code);
      return;
    }
    into.set(dir, entries);
    for (const e of entries) {
      if (!e.isDir) continue;
      const path = join(dir, e.name);
      if (options.wantDir(path)) visit(path);
    }
  };
  for (const root of roots) visit(root);
  return into;
}
