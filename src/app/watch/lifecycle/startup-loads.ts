// The start-up scan applied: every session found gets the record it starts
// from (startup-plan.ts), and those that need reading are loaded one after
// another.
import type { Clock } from '../../../core/clock.js';
import type { DirListing } from '../../../adapters/files/dir-walk.js';
import type { Logger } from '../../../adapters/logger.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { EventRouter } from '../intake/event-router.js';
import type { RunState } from './run-state.js';
import type { SessionLoader } from '../sessions/session-loader.js';
import type { SessionEntry, SessionRegistry } from '../sessions/session-registry.js';
import type { SessionUnloader } from '../sessions/session-unloader.js';
import { drained } from './settling.js';
import { planSession } from './startup-plan.js';
import { scanProjects } from './startup-scan.js';
import type { WatchState } from '../state/watch-state.js';

export interface PendingLoad {
  entry: SessionEntry;
  /** Last write to any of its files (epoch ms). */
  lastWrite: number;
}

export interface StartupScanInput {
  roots: string[];
  listing: DirListing;
  log: Logger;
  clock: Clock;
  registry: SessionRegistry;
  router: EventRouter;
  /** The state saved by the last run; null on a first start. */
  prior: WatchState | null;
  backfill: boolean;
  idleMs: number;
}

/** Registers every session found; returns those to load, most recently written first. */
export function planStartupLoads(input: StartupScanInput): PendingLoad[] {
  const { roots, listing, log, registry, router, prior, backfill, idleMs } = input;
  const toLoad: PendingLoad[] = [];
  const startedAt = input.clock.now();
  for (const { files: s, current, lastWrite, flatAgents } of scanProjects(roots, listing, log)) {
    const key = s.mainFile;
    for (const file of flatAgents) router.noteFlatAgent(file, key, s.sessionId);
    const entry = registry.entryFor(key, s.sessionId);
    const plan = planSession(
      { key, current, lastWrite },
      { prior, backfill, now: startedAt, idleMs },
    );
    entry.record = plan.record;
    if (plan.load) toLoad.push({ entry, lastWrite });
  }
  return toLoad;
}

export interface StartupLoadParts {
  run: RunState;
  clock: Clock;
  idleMs: number;
  loader: SessionLoader;
  unloader: SessionUnloader;
  queue: DeliveryQueue;
}

/** Loads the sessions in order; history (quiet for --idle-timeout, or all with --once) is drained and unloaded before the next. */
export async function loadAtStartup(toLoad: PendingLoad[], parts: StartupLoadParts): Promise<void> {
  const { run, clock, idleMs, loader, unloader, queue } = parts;
  // Most recently written first: the session in use matters more than history.
  toLoad.sort((a, b) => b.lastWrite - a.lastWrite);
  for (const { entry, lastWrite } of toLoad) {
    if (run.stopping) break;
    await loader.activate(entry);
    // History is delivered and unloaded one session at a time: memory stays bounded.
    if (run.once || clock.now() - lastWrite >= idleMs) {
      await drained(entry, queue, run);
      await entry.schedule.run(() => unloader.maybeDemote(entry));
    }
  }
}
