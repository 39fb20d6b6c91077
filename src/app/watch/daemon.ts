// `ccotel watch`: follows the projects dirs and sends each span as soon as the
// work it describes is over. Wiring only; the parts:
//   watch-setup             → state dir lock, export records, last run's state
//   watcher-start, event-intake, event-router, route-actions
//                           → which file changed, which session it concerns, what to do
//   session-registry        → the sessions followed, loaded or not; the state's snapshot
//   session-loader, session-activity, session-unloader
//                           → load a session, read and rebuild it as it is written,
//                             flush it when idle, unload it once quiet and delivered
//   session-schedule        → per session: one job chain, batched rebuilds, idle timer
//   session-tracker         → tail it, fold into core state, rebuild the turns
//                             it touched, queue spans that are final (core/finality.ts)
//   session-delivery, delivery-queue
//                           → batch, send, retry through outages
//   startup-scan, startup-plan, startup-loads
//                           → what to load at start, and loading it in order
//   watch-state, state-saver, export-records
//                           → what was delivered, durable across kill -9
//   settling, shutdown, once-finish
//                           → when all is done, stopping, the exit code
// Time comes from the injected clock (core/clock.ts), so timing is tested without sleeps.
// Sessions are loaded while active and unloaded once quiet for --idle-timeout
// and fully delivered, so memory follows the sessions in use, not the history.
import type { StateLock } from '../../adapters/state/state-lock.js';
import type { DirWatcher } from '../../adapters/fswatch/dir-watcher.js';
import { ownerOf } from '../../adapters/files/session-files.js';
import type { DeliveryQueue } from './delivery/delivery-queue.js';
import { EventIntake } from './intake/event-intake.js';
import { EventRouter } from './intake/event-router.js';
import { finishOnce } from './lifecycle/once-finish.js';
import { RouteActions } from './intake/route-actions.js';
import type { RunState } from './lifecycle/run-state.js';
import { SessionActivity } from './sessions/session-activity.js';
import { createSessionDelivery } from './delivery/session-delivery.js';
import { SessionLoader } from './sessions/session-loader.js';
import { SessionRegistry } from './sessions/session-registry.js';
import { SessionUnloader } from './sessions/session-unloader.js';
import { settler } from './lifecycle/settling.js';
import { stopper } from './lifecycle/shutdown.js';
import { loadAtStartup, planStartupLoads } from './lifecycle/startup-loads.js';
import { createStateSaver, type StateSaver } from './state/state-saver.js';
import { startDirWatcher, startupListing } from './intake/watcher-start.js';
import type { WatchDaemon, WatchOptions } from './watch-options.js';
import { prepareWatch, type WatchSetup } from './lifecycle/watch-setup.js';
import type { WatchState } from './state/watch-state.js';

export type { WatchDaemon, WatchOptions } from './watch-options.js';

/** The parts that follow sessions, wired to each other; nothing runs yet. */
interface DaemonParts {
  run: RunState;
  registry: SessionRegistry;
  router: EventRouter;
  saver: StateSaver;
  unloader: SessionUnloader;
  queue: DeliveryQueue;
  loader: SessionLoader;
  intake: EventIntake;
}

function wireParts(options: WatchOptions, setup: WatchSetup): DaemonParts {
  const { log } = options;
  const { clock, idleMs, ctx } = setup;
  const run: RunState = { once: options.once, stopping: false };
  const registry = new SessionRegistry({ clock, log, rebuildDelayMs: setup.recomputeDelayMs });
  const router = new EventRouter({ roots: setup.roots, ownerOf });
  const snapshot = (): WatchState => registry.snapshot(setup.createdAt);
  const saver = createStateSaver(setup.stateDir, setup.records, snapshot, log, clock);
  const unloader = new SessionUnloader(run, log, saver.saveSoon);
  const queue = createSessionDelivery({
    settings: options.settings,
    resource: options.resource,
    makeSink: options.makeSink,
    lingerMs: options.lingerMs,
    run,
    log,
    clock,
    registry,
    unloader,
    persist: saver.save,
  });
  const activity = new SessionActivity({ run, log, idleMs, queue, unloader });
  const loader = new SessionLoader({ run, clock, log, idleMs, ctx, registry, router, activity });
  const persistSoon = saver.saveSoon;
  const actions = new RouteActions({ log, registry, router, loader, activity, persistSoon });
  const intake = new EventIntake(run, log, router, actions);
  return { run, registry, router, saver, unloader, queue, loader, intake };
}

/** stop(), and with --once the end of the run once it settled; both resolve `done`. */
function wireEnd(
  options: WatchOptions,
  setup: WatchSetup,
  parts: DaemonParts & {
    watcher: DirWatcher | null;
    ready: Promise<void>;
    settled(): Promise<void>;
  },
): Pick<WatchDaemon, 'done' | 'stop'> {
  const { log } = options;
  const { run, saver, registry, queue, watcher, ready, settled } = parts;
  const exit = daemonExit(setup.lock);
  const malformedLines = (): number | undefined => setup.ctx.malformed?.count;
  const stopFlushMs = options.stopFlushMs ?? 3000;
  const { clock } = setup;
  const shutdown = {
    run,
    clock,
    log,
    stopFlushMs,
    watcher,
    saver,
    registry,
    queue,
    malformedLines,
  };
  const stop = stopper({ ...shutdown, settle: settled }, exit.resolve);
  if (options.once)
    finishOnce(
      { ready, settle: settled, saver, registry, queue, log, malformedLines },
      exit.resolve,
    ).catch((err: unknown) => {
      // Not expected (settling and saving do not throw); without this the run would never end.
      log.error('watch --once failed', { error: err });
      exit.resolve(1);
    });
  return { done: exit.done, stop };
}

export async function startWatch(options: WatchOptions): Promise<WatchDaemon> {
  const { settings, log, once, backfill } = options;
  const setup = await prepareWatch(options);
  const { clock, roots, idleMs, prior } = setup;
  const parts = wireParts(options, setup);
  const { run, registry, router, saver, unloader, queue, loader, intake } = parts;
  const watcher = once ? null : await startDirWatcher(roots, router, intake.onEvent, log);
  const listing = startupListing(watcher, roots, router);
  const scan = { roots, listing, log, clock, registry, router, prior, backfill, idleMs };
  const toLoad = planStartupLoads(scan);
  // Saved at once: a daemon killed before its first delivery must not take the
  // sessions written meanwhile for history on its next start.
  await saver.save();
  log.info('watching', {
    projectsDirs: roots,
    endpoint: settings.endpoint,
    stateDir: setup.stateDir,
    sessions: registry.size,
    loading: toLoad.length,
    firstStart: prior === null,
    backfill,
    once,
  });
  intake.open();
  const ready = loadAtStartup(toLoad, { run, clock, idleMs, loader, unloader, queue });
  const settled = settler({
    ready,
    registry,
    queue,
    run,
    clock,
    recomputeDelayMs: setup.recomputeDelayMs,
  });
  const { done, stop } = wireEnd(options, setup, { ...parts, watcher, ready, settled });
  return { ready, done, stop, settled };
}

/**
 * The daemon's exit code, resolved once it stopped or (--once) finished. The
 * state dir's lock is released then, so another ccotel may use the dir.
 */
interface DaemonExit {
  readonly done: Promise<number>;
  resolve(code: number): void;
}

function daemonExit(lock: StateLock): DaemonExit {
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => {
    resolveDone = r;
  });
  // Never rejects (release is synchronous underneath, adapters/state/state-lock.ts).
  void done.then(() => lock.release());
  return { done, resolve: (code) => resolveDone(code) };
}
