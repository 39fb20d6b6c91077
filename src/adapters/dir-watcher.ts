// Filesystem events for the projects dirs, through chokidar with native
// watchers only (no polling: an idle daemon costs ~0 % CPU). Two chokidar
// behaviours are worked around here:
//  - it drops (does not delay) a second `change` of a file within 50 ms of the
//    first, so an append right after another could go unseen until the next
//    write. Every burst of add/change events is therefore followed by one
//    trailing `change` 60 ms after its last event: a one-shot timer per burst,
//    not a polling loop;
//  - it does not notice a root that does not exist yet, so a missing root is
//    watched through its nearest existing ancestor, filtered down to the path
//    that leads to it (~/.claude/projects on a machine where Claude Code has
//    not run yet).
import { stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

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
  /** Delay of the trailing re-check after a change (default 60 ms, past chokidar's 50 ms throttle). */
  trailingMs?: number;
}

export interface DirWatcher {
  /** Resolves once the initial directory scan is done and events are live. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

const isUnder = (path: string, root: string): boolean =>
  path === root || path.startsWith(root + sep);

async function nearestExisting(path: string): Promise<string> {
  let current = path;
  for (;;) {
    const info = await stat(current).catch(() => null);
    if (info?.isDirectory() === true) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

export async function watchDirs(
  rootsIn: string[],
  options: DirWatcherOptions,
): Promise<DirWatcher> {
  const roots = rootsIn.map((r) => resolve(r));
  const watchPoints = [...new Set(await Promise.all(roots.map(nearestExisting)))];
  const trailingMs = options.trailingMs ?? 60;
  const trailing = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const ignored = (path: string, stats?: { isDirectory(): boolean }): boolean => {
    const p = resolve(path);
    const root = roots.find((r) => isUnder(p, r));
    // Outside every root: keep only the ancestors a missing root will appear under.
    if (root === undefined) return !roots.some((r) => r.startsWith(p + sep));
    if (p === root) return false;
    return !options.wanted(p, stats === undefined ? undefined : stats.isDirectory());
  };

  const watcher: FSWatcher = watch(watchPoints, {
    persistent: true,
    ignoreInitial: true,
    usePolling: false,
    awaitWriteFinish: false,
    // A directory we may not read is reported (onError), not silently left out.
    ignorePermissionErrors: false,
    ignored,
  });

  const emit = (type: WatchEventType, path: string): void => {
    if (closed) return;
    const p = resolve(path);
    if (!roots.some((r) => isUnder(p, r))) return;
    options.onEvent({ type, path: p });
  };

  // Restarted on every event: the check lands after the last throttle window closed.
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

  watcher.on('add', (path) => {
    emit('add', path);
    scheduleTrailing(path);
  });
  watcher.on('change', (path) => {
    emit('change', path);
    scheduleTrailing(path);
  });
  watcher.on('unlink', (path) => emit('unlink', path));
  watcher.on('unlinkDir', (path) => emit('unlinkDir', path));
  watcher.on('error', (err) =>
    options.onError(err instanceof Error ? err : new Error(String(err))),
  );

  const ready = new Promise<void>((resolveReady) => watcher.once('ready', () => resolveReady()));

  return {
    ready,
    async close() {
      closed = true;
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
      await watcher.close();
    },
  };
}
