// A root of the directory watcher that does not exist yet is watched through
// its nearest existing ancestor, filtered down to the path that leads to it
// (~/.claude/projects on a machine where Claude Code has not run yet); kept
// from the chokidar days. A root deleted later is watched for again the same
// way. Once the root exists, the watcher takes it over.
import type { FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isUnder } from '../../core/transcript/paths.js';
import { kindOf } from './watch-paths.js';

/** An fs.watch listener: the event's type and the entry it names, if any. */
export type DirListener = (type: string, name: string | null) => void;

export interface AnchorHooks {
  /** Starts a directory watch; null when it could not (the watcher tells why, if it matters). */
  openWatch(dir: string, listener: DirListener): FSWatcher | null;
  /** The root exists now: the watcher watches it, and everything in it is new to the caller. */
  appeared(root: string): void;
  isClosed(): boolean;
}

function nearestExisting(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    if (kindOf(current) === 'dir' || dirname(current) === current) return current;
  }
}

/**
 * Whether an event in the watched ancestor `at` may bring the root closer:
 * only the next dir on the way down to the root matters, or the ancestor
 * itself going away.
 */
export function mattersToRoot(root: string, at: string, name: string | null): boolean {
  return name === null || name === basename(at) || isUnder(root, join(at, name));
}

export class RootAnchors {
  /** For each missing root: the ancestor watched until it appears. */
  private readonly anchors = new Map<string, { path: string; watcher: FSWatcher }>();

  constructor(private readonly hooks: AnchorHooks) {}

  /** Watches the nearest existing ancestor of a missing root until the root appears. */
  watchFor(root: string): void {
    for (;;) {
      if (this.hooks.isClosed()) return;
      const at = nearestExisting(root);
      if (at === root) {
        this.release(root);
        this.hooks.appeared(root);
        return;
      }
      if (this.anchors.get(root)?.path === at) return;
      this.release(root);
      const watcher = this.hooks.openWatch(at, (_type, name) => {
        if (mattersToRoot(root, at, name)) this.watchFor(root);
      });
      if (watcher === null) return;
      this.anchors.set(root, { path: at, watcher });
      // Loop: the next dir may have appeared between the stat and the watch.
    }
  }

  closeAll(): void {
    for (const a of this.anchors.values()) a.watcher.close();
    this.anchors.clear();
  }

  /** Stops watching the ancestor of this root, if one is watched. */
  private release(root: string): void {
    this.anchors.get(root)?.watcher.close();
    this.anchors.delete(root);
  }
}
