// Watching the projects dirs: only the paths that can hold transcripts
// (file-kind.ts), with a hint when the kernel's watch limit is the reason
// watching failed. The start-up walk that set up
// the watches also gives the listing the scan works from; --once, which does
// not watch, walks without watching.
import { walkDirs, type DirListing } from '../../../adapters/files/dir-walk.js';
import {
  watchDirs,
  type DirWatcher,
  type WatchEvent,
} from '../../../adapters/fswatch/dir-watcher.js';
import type { Logger } from '../../../adapters/logger.js';
import type { EventRouter } from './event-router.js';
import { isWatchedPath } from './file-kind.js';

/** Whether a path under one of the roots matters to the daemon. */
const wantedBy =
  (router: EventRouter) =>
  (path: string, isDir: boolean | undefined): boolean => {
    const root = router.rootOf(path);
    return root !== undefined && isWatchedPath(path, isDir, root);
  };

/** Starts watching; resolves once the start-up walk is done and events are live. */
export async function startDirWatcher(
  roots: string[],
  router: EventRouter,
  onEvent: (ev: WatchEvent) => void,
  log: Logger,
): Promise<DirWatcher> {
  const watcher = await watchDirs(roots, {
    onEvent,
    onError: (err) => {
      const hint =
        (err as NodeJS.ErrnoException).code === 'ENOSPC'
          ? 'inotify watch limit reached: raise fs.inotify.max_user_watches'
          : undefined;
      log.error('file watching failed', { error: err, hint });
    },
    wanted: wantedBy(router),
  });
  await watcher.ready;
  return watcher;
}

/** The dirs as the watcher's walk listed them (one walk for both); without a watcher, a walk of its own. */
export const startupListing = (
  watcher: DirWatcher | null,
  roots: string[],
  router: EventRouter,
): DirListing => {
  const wanted = wantedBy(router);
  return watcher?.takeListing() ?? walkDirs(roots, { wantDir: (p) => wanted(p, true) });
};
