// Which session a file event concerns, and what it means for it: a session's
// main file, a sub-agent file or sidecar changed or went away, or a whole dir
// was removed. 2.0.x flat agent files name their session only on their first
// line: the owner is read once (an adapter) and remembered.
import { isUnder } from '../../../core/transcript/paths.js';
import type { WatchEvent } from '../../../adapters/fswatch/dir-watcher.js';
import { classifyPath, sessionKeyOf } from '../../../core/transcript/paths.js';

export type Route =
  | { kind: 'dir-removed'; path: string }
  | { kind: 'session-removed'; key: string }
  | { kind: 'file-removed'; key: string; path: string }
  | { kind: 'changed'; key: string; sessionId: string; path: string };

interface Owner {
  key: string;
  sessionId: string;
}

export interface EventRouterOptions {
  /** The projects dirs watched, resolved. */
  roots: string[];
  /** The session id named on a flat agent file's first line; null if not written yet. */
  ownerOf(path: string): Promise<string | null>;
}

export class EventRouter {
  private readonly options: EventRouterOptions;
  /** 2.0.x flat agent file → its session. */
  private readonly owners = new Map<string, Owner>();

  constructor(options: EventRouterOptions) {
    this.options = options;
  }

  rootOf(path: string): string | undefined {
    return this.options.roots.find((r) => isUnder(path, r));
  }

  /** A flat agent file found by the start-up scan. */
  noteFlatAgent(path: string, key: string, sessionId: string): void {
    this.owners.set(path, { key, sessionId });
  }

  /** The flat agent files known to belong to a session. */
  flatAgentsOf(key: string): string[] {
    return [...this.owners].filter(([, o]) => o.key === key).map(([path]) => path);
  }

  forgetSession(key: string): void {
    for (const path of this.flatAgentsOf(key)) this.owners.delete(path);
  }

  forgetFile(path: string): void {
    this.owners.delete(path);
  }

  /** What an event means, or null when it concerns no transcript (or not yet). */
  async route(ev: WatchEvent): Promise<Route | null> {
    if (ev.type === 'unlinkDir') return { kind: 'dir-removed', path: ev.path };
    const root = this.rootOf(ev.path);
    const kind = root === undefined ? null : classifyPath(ev.path, root);
    if (kind === null) return null;
    let owner: Owner;
    if (kind.kind === 'flat-agent') {
      const known = this.owners.get(ev.path);
      if (known !== undefined) owner = known;
      else {
        if (ev.type === 'unlink') return null;
        // Not written yet: the next change event tries again.
        const sessionId = await this.options.ownerOf(ev.path);
        if (sessionId === null) return null;
        owner = { key: sessionKeyOf(kind.projectDir, sessionId), sessionId };
        this.owners.set(ev.path, owner);
      }
    } else {
      owner = { key: kind.sessionKey, sessionId: kind.sessionId };
    }
    if (ev.type === 'unlink')
      return kind.kind === 'main'
        ? { kind: 'session-removed', key: owner.key }
        : { kind: 'file-removed', key: owner.key, path: ev.path };
    return { kind: 'changed', key: owner.key, sessionId: owner.sessionId, path: ev.path };
  }
}
