// Filesystem events for the projects dirs, through chokidar 5, configured for
// this job: chokidar watches the wanted *directories* (one fs.watch each:
// inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows) and
// ignores every file, so it keeps no per-file watch or state. Files are seen
// through its `raw` events: a directory's watch names each entry created,
// deleted, renamed or written in it, and that is turned here into add /
// change / unlink. chokidar watching every file cost 4.6-6.9 s and 220-239 MB
// to start over 10,000 files, and its 50 ms change throttle delayed every
// second append (docs/benchmarks.md); configured this way neither applies.
// No polling: an idle daemon costs ~0 % CPU. Kept from before:
//  - every burst of add/change events on a file is followed by one trailing
//    `change` 60 ms after its last event (a one-shot timer per burst, not a
//    polling loop): a safety net should the platform merge or drop an event
//    of a write racing the read that the previous event started;
//  - a root that does not exist yet is watched through its nearest existing
//    ancestor (a chokidar watch of depth 0), down to the path that leads to it
//    (~/.claude/projects on a machine where Claude Code has not run yet). A
//    root deleted later is watched for again the same way.
// Start-up: once chokidar is ready (every watch on), one synchronous walk
// (dir-walk.ts) lists the dirs for the caller's scan: a file created during
// start-up is either listed or reported, or both.
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { DirListing, walkDirs } from './dir-walk.js';
import { readDirEntries, statOrNull } from './session-files.js';

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

/**
 * chokidar reports a new directory before its watch of it is on: a file
 * written into it in between has no event. The dir is listed again after
 * these delays (ms); a file found only then is reported as added.
 */
const RELIST_AFTER_MS = [60, 1000];

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

const ready = (w: FSWatcher): Promise<void> =>
  new Promise((resolve) => w.once('ready', () => resolve()));

export async function watchDirs(
  rootsIn: string[],
  options: DirWatcherOptions,
): Promise<DirWatcher> {
  const roots = [...new Set(rootsIn.map((r) => resolve(r)))];
  const trailingMs = options.trailingMs ?? 60;
  /** For each missing root: the ancestor watched until it appears. */
  const anchors = new Map<string, { path: string; watcher: FSWatcher }>();
  const trailing = new Map<string, NodeJS.Timeout>();
  const relists = new Set<NodeJS.Timeout>();
  /** Roots chokidar watches now (the others are anchored). */
  const live = new Set<string>();
  let closed = false;

  const limitsHit = new Set<string>();
  const report = (err: unknown): void => {
    if (closed) return;
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

  const wantDir = (path: string): boolean => options.wanted(path, true);

  /** chokidar's filter: every file ignored, and the dirs that never hold transcripts. */
  const ignored = (path: string, stats?: Stats): boolean => {
    if (!roots.some((r) => isUnder(path, r))) return false; // an ancestor on the way to a root
    if (stats === undefined) return !options.wanted(path, undefined);
    if (stats.isSymbolicLink()) {
      const kind = kindOf(path);
      return kind !== 'dir' || !wantDir(path);
    }
    return !stats.isDirectory() || !wantDir(path);
  };

  /** The wanted files directly in a dir, as `add`s; those in `seen` are left out. */
  const reportFilesIn = (dir: string, seen: Set<string>): void => {
    let entries;
    try {
      entries = readDirEntries(dir);
    } catch {
      return; // gone again: its unlinkDir follows
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDir || seen.has(path) || !options.wanted(path, false)) continue;
      seen.add(path);
      emitFile('add', path);
    }
  };

  /** Reports now, and again after RELIST_AFTER_MS, the files that `list` finds. */
  const reportNowAndLater = (list: (seen: Set<string>) => void): void => {
    const seen = new Set<string>();
    list(seen);
    for (const ms of RELIST_AFTER_MS) {
      const timer = setTimeout(() => {
        relists.delete(timer);
        if (!closed) list(seen);
      }, ms);
      relists.add(timer);
    }
  };

  /** A dir that appeared: what is in it is new to the caller (its subdirs get their own addDir). */
  const onNewDir = (dir: string): void => reportNowAndLater((seen) => reportFilesIn(dir, seen));

  /** A name in a watched dir was created, deleted, renamed or written: say what it is now. */
  const onRaw = (type: string, name: string | null, watchedPath: string): void => {
    if (closed || name === null || name === '') return;
    const path = join(watchedPath, name);
    if (name === basename(watchedPath) && live.has(watchedPath) && kindOf(watchedPath) !== 'dir') {
      rootGone(watchedPath);
      return;
    }
    if (type === 'change') {
      // Written to (or its attributes changed); wanted(…, false) is false for a dir.
      if (options.wanted(path, false)) emitFile('change', path);
      return;
    }
    const kind = kindOf(path);
    if (kind === 'dir' || !options.wanted(path, false)) return; // dirs: chokidar's addDir
    if (kind === 'file') emitFile('add', path);
    else emit('unlink', path);
  };

  const main = chokidarWatch([], {
    ignored,
    ignoreInitial: true,
    persistent: true,
    // Off: it holds back unlinks 100 ms to merge them with an add; files are ours.
    atomic: false,
    // Symlinked project dirs are followed as before; loops end at wanted()'s depth limit.
    followSymlinks: true,
  });
  main.on('raw', (type, name, details) => {
    // fs.watch events carry the watched dir; polling ones (never used here) do not.
    const watchedPath = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (typeof watchedPath === 'string') onRaw(type, name, watchedPath);
  });
  main.on('addDir', (dir: string) => {
    if (!closed && !live.has(dir)) onNewDir(dir);
  });
  main.on('unlinkDir', (dir: string) => {
    if (live.has(dir)) rootGone(dir);
    else emit('unlinkDir', dir);
  });
  main.on('error', report);

  /** A root deleted: stop watching it, and wait for it to come back, as for a root missing at start. */
  function rootGone(root: string): void {
    if (!live.delete(root)) return;
    void main.unwatch(root);
    emit('unlinkDir', root);
    anchor(root);
  }

  /**
   * A root that appeared (or came back): watched, and every wanted file in it
   * reported. chokidar says nothing of what it finds in a root it is given
   * (ignoreInitial), and is not yet watching when it is given one: the tree is
   * walked now and again a moment later.
   */
  const rootAppeared = (root: string): void => {
    live.add(root);
    main.add(root);
    reportNowAndLater((seen) => {
      for (const [dir] of walkDirs([root], { wantDir }).entries()) reportFilesIn(dir, seen);
    });
  };

  /** Watches the nearest existing ancestor of a missing root until the root appears. */
  function anchor(root: string): void {
    if (closed) return;
    const at = nearestExisting(root);
    const current = anchors.get(root);
    if (at === root) {
      void current?.watcher.close();
      anchors.delete(root);
      rootAppeared(root);
      return;
    }
    if (current?.path === at) return;
    void current?.watcher.close();
    const w = chokidarWatch(at, { depth: 0, ignoreInitial: true, atomic: false });
    // The next dir on the way down appearing, or the ancestor going away: look again.
    const recheck = (): void => {
      if (anchors.get(root)?.watcher === w) anchor(root);
    };
    w.on('raw', recheck);
    w.on('addDir', recheck);
    w.on('unlinkDir', recheck);
    w.on('error', report);
    anchors.set(root, { path: at, watcher: w });
    // The next dir may have appeared between the stat and the watch.
    void ready(w).then(recheck);
  }

  const present = roots.filter((r) => kindOf(r) === 'dir');
  for (const root of present) live.add(root);
  main.add(present);
  if (present.length > 0) await ready(main);
  for (const root of roots) if (!live.has(root)) anchor(root);
  let listing: DirListing | null = walkDirs(present, { wantDir });

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
      for (const timer of relists) clearTimeout(timer);
      relists.clear();
      const closing = [main.close(), ...[...anchors.values()].map((a) => a.watcher.close())];
      anchors.clear();
      await Promise.all(closing);
    },
  };
}
