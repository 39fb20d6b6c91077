// Filesystem events for the projects dirs: Node's own fs.watch on each wanted
// directory, not on files (inotify on Linux, FSEvents on macOS). A directory
// watch reports every create, delete, rename and write of the files in it, so
// one watch per directory is enough, and nothing is kept per file: watching
// 10,000 transcripts costs ~3,700 watches and no per-file state (chokidar,
// used before, stat-ed and watched every file: 4.6 s and 225 MB to start;
// chokidar 5 set to watch directories only still stat-s every entry and keeps
// state per directory: 2.9-4.6 s and 202-207 MB, measured against this one in
// the same sitting, docs/benchmarks.md step 13).
// No polling: an idle daemon costs ~0 % CPU. Kept from the chokidar days:
//  - every burst of add/change events on a file is followed by one trailing
//    `change` 60 ms after its last event (a one-shot timer per burst, not a
//    polling loop): a safety net should the platform merge or drop an event
//    of a write racing the read that the previous event started;
//  - a root that does not exist yet is watched through its nearest existing
//    ancestor, filtered down to the path that leads to it (~/.claude/projects
//    on a machine where Claude Code has not run yet). A root deleted later is
//    watched for again the same way.
// The start-up walk (synchronous, see dir-walk.ts) starts each watch before
// listing its directory, so a file created during the walk is either listed or
// reported; the listing is handed to the caller for its own scan.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { DirListing, walkDirs } from './dir-walk.js';
import { statOrNull } from './session-files.js';

export type WatchEventType = 'add' | 'change' | 'unlink' | 'unlinkDir';

export interface WatchEvent {
  type: WatchEventType;
  path: string;
}

export interface DirWatcherOptions {
  onEvent(event: WatchEvent): void;
  onError(error: Error): void;
  /** Whether a path under a root matters; isDir is undefined when not yet known. */
  wanted(path: string, isDir: boolean | undefined): boolean;
  /** Delay of the trailing re-check after a change (default 60 ms). */
  trailingMs?: number;
}

export interface DirWatcher {
  /** Resolves once the initial directory walk is done and events are live. */
  readonly ready: Promise<void>;
  /**
   * What the start-up walk listed (every watched directory), once: the caller
   * scans it instead of walking again, and the watcher keeps no copy.
   */
  takeListing(): DirListing;
  close(): Promise<void>;
}

const isUnder = (path: string, root: string): boolean =>
  path === root || path.startsWith(root + sep);

/** What is at a path now, symlinks followed. */
function kindOf(path: string): 'dir' | 'file' | null {
  const info = statOrNull(path);
  if (info === null) return null;
  return info.isDirectory() ? 'dir' : 'file';
}

function nearestExisting(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    if (kindOf(current) === 'dir' || dirname(current) === current) return current;
  }
}

export async function watchDirs(
  rootsIn: string[],
  options: DirWatcherOptions,
): Promise<DirWatcher> {
  const roots = [...new Set(rootsIn.map((r) => resolve(r)))];
  const trailingMs = options.trailingMs ?? 60;
  /** Watched directories under the roots (roots included). */
  const watched = new Map<string, FSWatcher>();
  /** For each missing root: the ancestor watched until it appears. */
  const anchors = new Map<string, { path: string; watcher: FSWatcher }>();
  const trailing = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const limitsHit = new Set<string>();
  const report = (err: unknown): void => {
    const code = (err as NodeJS.ErrnoException).code;
    // Past the inotify watch limit every further dir fails alike: say it once, not per dir.
    if (code === 'ENOSPC' || code === 'EMFILE') {
      if (limitsHit.has(code)) return;
      limitsHit.add(code);
    }
    options.onError(err instanceof Error ? err : new Error(String(err)));
  };

  const emit = (type: WatchEventType, path: string): void => {
    if (closed || !roots.some((r) => isUnder(path, r))) return;
    options.onEvent({ type, path });
  };

  // Restarted on every event: the check lands after the burst is over.
  const scheduleTrailing = (path: string): void => {
    const pending = trailing.get(path);
    if (pending !== undefined) clearTimeout(pending);
    trailing.set(
      path,
      setTimeout(() => {
        trailing.delete(path);
        emit('change', path);
      }, trailingMs),
    );
  };

  const emitFile = (type: 'add' | 'change', path: string): void => {
    emit(type, path);
    scheduleTrailing(path);
  };

  /** A watch that fails for a reason other than the dir having gone is told (EACCES, ENOSPC). */
  const openWatch = (
    dir: string,
    listener: (type: string, name: string | null) => void,
  ): FSWatcher | null => {
    try {
      const w = watch(dir, { persistent: true }, listener);
      w.on('error', (err) => {
        if (kindOf(dir) === 'dir') report(err);
        else gone(dir);
      });
      return w;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') report(err);
      return null;
    }
  };

  const startWatching = (dir: string): void => {
    if (closed || watched.has(dir)) return;
    const w = openWatch(dir, (type, name) => onDirEvent(dir, type, name));
    if (w !== null) watched.set(dir, w);
  };

  const wantDir = (path: string): boolean => options.wanted(path, true);

  /** Watches a directory and the wanted ones under it; with report, each wanted file found is an `add`. */
  const addTree = (dir: string, reportFiles: boolean): DirListing => {
    const listing = walkDirs([dir], { wantDir, beforeList: startWatching });
    if (reportFiles)
      for (const [d, entries] of listing.entries())
        for (const e of entries) {
          const path = join(d, e.name);
          if (!e.isDir && options.wanted(path, false)) emitFile('add', path);
        }
    return listing;
  };

  /** A watched directory is gone: stop watching it and everything under it. */
  const gone = (dir: string): void => {
    if (!watched.has(dir)) return;
    for (const [path, w] of watched)
      if (isUnder(path, dir)) {
        w.close();
        watched.delete(path);
      }
    emit('unlinkDir', dir);
    // A root deleted: wait for it to come back, as for a root missing at start.
    if (roots.includes(dir)) anchor(dir);
  };

  /** A name in a watched dir was created, deleted or renamed: look at what is there now. */
  const settle = (path: string): void => {
    const kind = kindOf(path);
    if (kind === 'dir') {
      if (!watched.has(path) && options.wanted(path, true)) addTree(path, true);
      return;
    }
    // Missing, or a file where a watched dir was.
    gone(path);
    if (!options.wanted(path, false)) return;
    if (kind === 'file') emitFile('add', path);
    else emit('unlink', path);
  };

  const onDirEvent = (dir: string, type: string, name: string | null): void => {
    if (closed) return;
    // Linux, macOS and Windows always name the entry; without a name only the dir's own fate is known.
    if (name === null) {
      if (kindOf(dir) !== 'dir') gone(dir);
      return;
    }
    const path = join(dir, name);
    if (name === basename(dir) && kindOf(path) === null) {
      // A dir's own watch names it by its basename when it is deleted or moved
      // away. A new dir may already stand in its place: watch that one instead
      // (a root is taken care of by gone()).
      gone(dir);
      if (!roots.includes(dir) && kindOf(dir) === 'dir' && options.wanted(dir, true))
        addTree(dir, true);
      return;
    }
    if (type === 'change') {
      // Written to (or its attributes changed); a subdir's attributes do not matter.
      if (!watched.has(path) && options.wanted(path, false)) emitFile('change', path);
      return;
    }
    settle(path);
  };

  /** Watches the nearest existing ancestor of a missing root until the root appears. */
  const anchor = (root: string): void => {
    for (;;) {
      if (closed) return;
      const at = nearestExisting(root);
      const current = anchors.get(root);
      if (at === root) {
        current?.watcher.close();
        anchors.delete(root);
        // Everything in it is new to the caller.
        addTree(root, true);
        return;
      }
      if (current?.path === at) return;
      current?.watcher.close();
      anchors.delete(root);
      const w = openWatch(at, (_type, name) => {
        // Only the next dir on the way down to the root matters, or the ancestor itself going away.
        if (name === null || name === basename(at) || isUnder(root, join(at, name))) anchor(root);
      });
      if (w === null) return;
      anchors.set(root, { path: at, watcher: w });
      // Loop: the next dir may have appeared between the stat and the watch.
    }
  };

  let listing: DirListing | null = new DirListing();
  for (const root of roots) {
    if (kindOf(root) === 'dir') walkDirs([root], { wantDir, beforeList: startWatching }, listing);
    else anchor(root);
  }

  return {
    ready: Promise.resolve(),
    takeListing() {
      const out = listing ?? new DirListing();
      listing = null;
      return out;
    },
    async close() {
      closed = true;
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
      for (const w of watched.values()) w.close();
      watched.clear();
      for (const a of anchors.values()) a.watcher.close();
      anchors.clear();
    },
  };
}
