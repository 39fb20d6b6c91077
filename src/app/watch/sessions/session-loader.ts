// Loading a session: a tracker over every one of its files (main file,
// subagents in its dir, 2.0.x agent files beside it, their meta files) read
// from byte 0, then flushed at once if it has been quiet for --idle-timeout
// already, or given an idle timer for the rest of that time.
import { dirname, join } from 'node:path';
import type { Clock } from '../../../core/clock.js';
import { fileInfo } from '../../../adapters/files/file-info.js';
import type { Logger } from '../../../adapters/logger.js';
import { subagentFiles } from '../../../adapters/files/session-files.js';
import type { EventRouter } from '../intake/event-router.js';
import type { RunState } from '../lifecycle/run-state.js';
import type { SessionActivity } from './session-activity.js';
import type { SessionEntry, SessionRegistry } from './session-registry.js';
import { SessionTracker, type TrackerContext } from './session-tracker.js';

export interface LoaderOptions {
  run: RunState;
  clock: Clock;
  log: Logger;
  /** --idle-timeout (ms). */
  idleMs: number;
  ctx: TrackerContext;
  registry: SessionRegistry;
  router: EventRouter;
  activity: SessionActivity;
}

/** Last write to any of `paths` (epoch ms; 0 if none can be read). */
async function lastWriteOf(paths: string[]): Promise<number> {
  const mtimes = await Promise.all(paths.map(async (p) => (await fileInfo(p))?.mtimeMs ?? 0));
  return Math.max(0, ...mtimes);
}

export class SessionLoader {
  private readonly options: LoaderOptions;

  constructor(options: LoaderOptions) {
    this.options = options;
  }

  /** Loads a session (every file from byte 0) and queues what is ready. */
  activate(entry: SessionEntry): Promise<void> {
    const { run, clock, log, idleMs, ctx, registry, router, activity } = this.options;
    return entry.schedule.run(async () => {
      if (entry.tracker !== null || run.stopping) return;
      const tracker = new SessionTracker(entry.key, entry.sessionId, ctx, entry.record);
      const nested = await subagentFiles(join(dirname(entry.key), entry.sessionId));
      for (const a of nested.agents) tracker.addFile(a.file);
      for (const m of nested.metas) tracker.addFile(m);
      for (const path of router.flatAgentsOf(entry.key)) tracker.addFile(path);
      await tracker.load();
      // Deleted (or stopping) while it was being read.
      if (!registry.holds(entry) || run.stopping) return;
      entry.tracker = tracker;
      if (run.once) tracker.setFlush('final');
      const paths = [
        entry.key,
        ...Object.keys(entry.record.files),
        ...nested.agents.map((a) => a.file),
      ];
      const quietFor = clock.now() - (await lastWriteOf(paths));
      log.debug('session loaded', { session: entry.sessionId, quietForMs: Math.round(quietFor) });
      if (!run.once && quietFor >= idleMs) {
        // Long quiet (history being backfilled, or a session left mid-turn): flush now.
        tracker.setFlush('idle');
      } else {
        activity.startIdleTimer(entry, Math.max(1, idleMs - quietFor));
      }
      activity.recomputeNow(entry);
    });
  }
}
