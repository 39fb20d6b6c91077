// What a routed file event does to the followed sessions: a change loads the
// session if needed and reads the new lines; a deleted transcript is
// forgotten with its session, a deleted sub-agent file or dir only from the
// sessions that held it.
import type { Logger } from '../../../adapters/logger.js';
import { isUnder } from '../../../core/transcript/paths.js';
import type { EventRouter, Route } from './event-router.js';
import type { SessionActivity } from '../sessions/session-activity.js';
import type { SessionLoader } from '../sessions/session-loader.js';
import type { SessionEntry, SessionRegistry } from '../sessions/session-registry.js';

export interface RouteActionsOptions {
  log: Logger;
  registry: SessionRegistry;
  router: EventRouter;
  loader: SessionLoader;
  activity: SessionActivity;
  /** The records changed: saved soon, not at once. */
  persistSoon(): void;
}

export class RouteActions {
  private readonly options: RouteActionsOptions;

  constructor(options: RouteActionsOptions) {
    this.options = options;
  }

  async apply(route: Route): Promise<void> {
    const { registry } = this.options;
    if (route.kind === 'dir-removed') {
      for (const entry of [...registry.values()]) {
        if (isUnder(entry.key, route.path)) this.drop(entry);
        else
          for (const path of Object.keys(entry.record.files))
            if (isUnder(path, route.path)) this.forgetFile(entry, path);
      }
      return;
    }
    if (route.kind !== 'changed') {
      const entry = registry.get(route.key);
      if (entry === undefined) return;
      if (route.kind === 'session-removed') this.drop(entry);
      else this.forgetFile(entry, route.path);
      return;
    }
    const entry = registry.entryFor(route.key, route.sessionId);
    if (entry.record.files[route.path] === undefined && entry.tracker?.hasFile(route.path) !== true)
      entry.record.files[route.path] = { ino: 0, size: 0 };
    // Not awaited: the new lines are read after the load, on the session's chain, which logs its failures.
    if (entry.tracker === null) void this.options.loader.activate(entry);
    await this.options.activity.ingest(entry, route.path);
  }

  private drop(entry: SessionEntry): void {
    const { log, registry, router, persistSoon } = this.options;
    entry.schedule.stop();
    registry.delete(entry);
    entry.tracker = null;
    router.forgetSession(entry.key);
    log.info('session file deleted; forgetting the session', { session: entry.sessionId });
    persistSoon();
  }

  private forgetFile(entry: SessionEntry, path: string): void {
    delete entry.record.files[path];
    entry.tracker?.forget(path);
    this.options.router.forgetFile(path);
    this.options.persistSoon();
  }
}
