// Filesystem events for the projects dirs: Node's own fs.watch on each wanted
// directory, not on files (inotify on Linux, FSEvents on macOS). A directory
// watch reports every create, delete, rename and write of the files in it, so
// one watch per directory is enough, and nothing is kept per file. chokidar,
// used before, stat-s every entry and keeps state per file or directory, and
// started slower and larger (measured in docs/benchmarks.md; README says why
// it is not used).
// No polling: an idle daemon uses no CPU. Kept from the chokidar days:
//  - every burst of add/change events on a file is followed by one trailing
//    `change` shortly after its last event (trailing-changes.ts says why);
//  - a root that does not exist yet is watched through its nearest existing
//    ancestor until it appears, and again after it is deleted (root-anchors.ts).
// The start-up walk (synchronous, see dir-walk.ts) starts each watch before
// listing its directory, so a file created during the walk is either listed or
// reported; the listing is handed to the caller for its own scan.
import { watch, type FSWatcher } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DirListing, walkDirs, type WalkOptions } from '../files/dir-walk.js';
import { RootAnchors, type DirListener } from './root-anchors.js';
import { TrailingChanges } from './trailing-changes.js';
import { isUnder } from '../../core/transcript/paths.js';
import { kindOf } from './watch-paths.js';

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
 * Tells a failed watch to onError. Past the inotify watch limit every further
 * dir fails alike: ENOSPC and EMFILE are said once each, not per dir.
 */
export function reportLimitsOnce(onError: (error: Error) => void): (err: unknown) => void {
  const limitsHit = new Set<string>();
  return (err) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EMFILE') {
      if (limitsHit.has(code)) return;
      limitsHit.add(code);
    }
    onError(err instanceof Error ? err : new Error(String(err)));
  };
}

/** The watched directories under the roots, and what their events mean to the caller. */
class WatchedTree {
  /** Watched directories under the roots (roots included). */
  private readonly watched = new Map<string, FSWatcher>();
  private readonly report: (err: unknown) => void;
  private readonly trailing: TrailingChanges;
  private readonly anchors: RootAnchors;
  /** Every walk starts each directory's watch before listing it. */
  private readonly walkOptions: WalkOptions;
  private closed = false;

  constructor(
    private readonly roots: string[],
    private readonly options: DirWatcherOptions,
  ) {
    this.report = reportLimitsOnce(options.onError);
    this.trailing = new TrailingChanges(options.trailingMs ?? 60, (path) =>
      this.emit('change', path),
    );
    this.anchors = new RootAnchors({
      openWatch: (dir, listener) => this.openWatch(dir, listener),
      // Everything in it is new to the caller.
      appeared: (root) => this.addTree(root, true),
      isClosed: () => this.closed,
    });
    this.walkOptions = {
      wantDir: (path) => options.wanted(path, true),
      beforeList: (dir) => this.startWatching(dir),
    };
  }

  /** The start-up walk: each existing root watched and listed, each missing one anchored. */
  start(): DirListing {
    const listing = new DirListing();
    for (const root of this.roots) {
      if (kindOf(root) === 'dir') walkDirs([root], this.walkOptions, listing);
      else this.anchors.watchFor(root);
    }
    return listing;
  }

  close(): void {
    this.closed = true;
    this.trailing.cancelAll();
    for (const w of this.watched.values()) w.close();
    this.watched.clear();
    this.anchors.closeAll();
  }

  private emit(type: WatchEventType, path: string): void {
    if (this.closed || !this.roots.some((r) => isUnder(path, r))) return;
    this.options.onEvent({ type, path });
  }

  private emitFile(type: 'add' | 'change', path: string): void {
    this.emit(type, path);
    this.trailing.schedule(path);
  }

  /** A watch that fails for a reason other than the dir having gone is told (EACCES, ENOSPC). */
  private openWatch(dir: string, listener: DirListener): FSWatcher | null {
    try {
      const w = watch(dir, { persistent: true }, listener);
      w.on('error', (err) => {
        if (kindOf(dir) === 'dir') this.report(err);
        else this.gone(dir);
      });
      return w;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.report(err);
      return null;
    }
  }

  private startWatching(dir: string): void {
    if (this.closed || this.watched.has(dir)) return;
    const w = this.openWatch(dir, (type, name) => this.onDirEvent(dir, type, name));
    if (w !== null) this.watched.set(dir, w);
  }

  /** Watches a directory and the wanted ones under it; with report, each wanted file found is an `add`. */
  private addTree(dir: string, reportFiles: boolean): void {
    const listing = walkDirs([dir], this.walkOptions);
    if (reportFiles)
      for (const [d, entries] of listing.entries())
        for (const e of entries) {
          const path = join(d, e.name);
          if (!e.isDir && this.options.wanted(path, false)) this.emitFile('add', path);
        }
  }

  /** A watched directory is gone: stop watching it and everything under it. */
  private gone(dir: string): void {
    if (!this.watched.has(dir)) return;
    for (const [path, w] of this.watched)
      if (isUnder(path, dir)) {
        w.close();
        this.watched.delete(path);
      }
    this.emit('unlinkDir', dir);
    // A root deleted: wait for it to come back, as for a root missing at start.
    if (this.roots.includes(dir)) this.anchors.watchFor(dir);
  }

  private onDirEvent(dir: string, type: string, name: string | null): void {
    if (this.closed) return;
    // Linux, macOS and Windows always name the entry; without a name only the dir's own fate is known.
    if (name === null) {
      if (kindOf(dir) !== 'dir') this.gone(dir);
      return;
    }
    const path = join(dir, name);
    // A dir's own watch names it by its basename when it is deleted or moved away.
    if (name === basename(dir) && kindOf(path) === null) {
      this.ownDirGone(dir);
      return;
    }
    if (type === 'change') {
      // Written to (or its attributes changed); a subdir's attributes do not matter.
      if (!this.watched.has(path) && this.options.wanted(path, false))
        this.emitFile('change', path);
      return;
    }
    this.settle(path);
  }

  /**
   * A watched dir was deleted or moved away. A new dir may already stand in
   * its place: watch that one instead (a root is taken care of by gone()).
   */
  private ownDirGone(dir: string): void {
    this.gone(dir);
    if (!this.roots.includes(dir) && kindOf(dir) === 'dir' && this.options.wanted(dir, true))
      this.addTree(dir, true);
  }

  /** A name in a watched dir was created, deleted or renamed: look at what is there now. */
  private settle(path: string): void {
    const kind = kindOf(path);
    if (kind === 'dir') {
      if (!this.watched.has(path) && this.options.wanted(path, true)) this.addTree(path, true);
      return;
    }
    // Missing, or a file where a watched dir was.
    this.gone(path);
    if (!this.options.wanted(path, false)) return;
    if (kind === 'file') this.emitFile('add', path);
    else this.emit('unlink', path);
  }
}

export async function watchDirs(
  rootsIn: string[],
  options: DirWatcherOptions,
): Promise<DirWatcher> {
  const tree = new WatchedTree([...new Set(rootsIn.map((r) => resolve(r)))], options);
  let listing: DirListing | null = tree.start();
  return {
    ready: Promise.resolve(),
    takeListing() {
      const out = listing ?? new DirListing();
      listing = null;
      return out;
    },
    async close() {
      tree.close();
    },
  };
}
