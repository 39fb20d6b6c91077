// `ccotel watch`: follows the projects dirs and sends each span as soon as the
// work it describes is over. Wiring only; the parts:
//   dir-watcher (fs.watch)  → which file changed
//   event-router            → which session it concerns, and what happened
//   session-schedule        → per session: one job chain, batched rebuilds, idle timer
//   session-tracker         → tail it, fold into core state, rebuild the turns
//                             it touched, queue spans that are final (core/finality.ts)
//   delivery-queue          → batch, send, retry through outages
//   startup-plan, watch-state, state-saver, export-records
//                           → what to load at start, what was delivered, durable across kill -9
// Time comes from the injected clock (core/clock.ts), so timing is tested without sleeps.
// Sessions are loaded while active and unloaded once quiet for --idle-timeout
// and fully delivered, so memory follows the sessions in use, not the history.
import { dirname, join, resolve } from 'node:path';
import type { Resource } from '@opentelemetry/resources';
import type { PriceTable } from '../../core/pricing.js';
import type { Settings } from '../../core/settings.js';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../adapters/system-clock.js';
import { fileInfo } from '../../adapters/file-info.js';
import { walkDirs, type DirListing } from '../../adapters/dir-walk.js';
import { watchDirs, type DirWatcher, type WatchEvent } from '../../adapters/dir-watcher.js';
import type { Logger } from '../../adapters/logger.js';
import { lockStateDir } from '../../adapters/state-lock.js';
import { ownerOf, subagentFiles } from '../../adapters/session-files.js';
import { parseOptionsFor } from '../session-spans.js';
import { otlpSink, type RetryPolicy, type SpanSink } from '../span-sink.js';
import { createDeliveryQueue, type Batch } from './delivery-queue.js';
import { createMalformedLines } from './malformed-lines.js';
import { openExportRecords } from './export-records.js';
import { isWatchedPath } from './file-kind.js';
import { EventRouter, isUnder, type Route } from './event-router.js';
import { SessionSchedule } from './session-schedule.js';
import { byTracker, takeRoundRobin, type Sent as OutboxItem } from './outbox-routing.js';
import { newRecord, planSession } from './startup-plan.js';
import { SessionTracker, type TrackerContext } from './session-tracker.js';
import { scanProjects } from './startup-scan.js';
import { createStateSaver } from './state-saver.js';
import {
  loadWatchState,
  watchStatePath,
  type SessionRecord,
  type WatchState,
} from './watch-state.js';

export interface WatchOptions {
  settings: Settings;
  prices: PriceTable;
  resource: Resource;
  log: Logger;
  /** Send history from before the first start too (everything not in export-state). */
  backfill: boolean;
  /** Process what is there, send what is complete, and stop. */
  once: boolean;
  /** Batching of new lines before a rebuild (default 10 ms). */
  recomputeDelayMs?: number;
  /** Linger before a send, to batch spans completing together (default 5 ms). */
  lingerMs?: number;
  /** Time given to delivery when stopping (default 3000 ms). */
  stopFlushMs?: number;
  /** Where spans go; default OTLP/HTTP to settings.endpoint. */
  makeSink?: (policy: RetryPolicy) => SpanSink;
  /** Time and timers (default: the system clock). */
  clock?: Clock;
}

export interface WatchDaemon {
  /** Startup scan done and the sessions that needed it (re)loaded. */
  readonly ready: Promise<void>;
  /** Exit code, once stopped (or, with --once, finished). */
  readonly done: Promise<number>;
  stop(reason?: string): Promise<number>;
  /** Resolves when no line is waiting to be processed and no span to be sent (tests, --once). */
  settled(): Promise<void>;
}

interface SessionEntry {
  key: string;
  sessionId: string;
  /** Persisted view; authoritative while the session is not loaded. */
  record: SessionRecord;
  tracker: SessionTracker | null;
  /** Everything touching the session runs in order on its schedule. */
  schedule: SessionSchedule;
}

type Sent = OutboxItem<SessionEntry>;

const sleepOn = (clock: Clock, ms: number): Promise<void> =>
  new Promise((r) => clock.setTimer(Math.max(0, ms), r));

/** Waits for work, but not past a deadline (epoch ms); the timer is cancelled so it cannot hold the process open. */
async function until(clock: Clock, work: Promise<unknown>, deadline: number): Promise<void> {
  let cancel = (): void => undefined;
  const expired = new Promise<void>((r) => {
    cancel = clock.setTimer(Math.max(0, deadline - clock.now()), r).cancel;
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    cancel();
  }
}

export async function startWatch(options: WatchOptions): Promise<WatchDaemon> {
  const { settings, log, once } = options;
  const clock = options.clock ?? systemClock;
  const stateDir = settings.stateDir ?? '.';
  // One ccotel per state dir: a second daemon would send every span again.
  const lock = await lockStateDir(stateDir, 'watch', { warn: (m) => log.warn(m) });
  const roots = [...new Set(settings.projectsDirs.map((d) => resolve(d)))];
  const idleMs = settings.idleTimeoutMs;
  const recomputeDelayMs = options.recomputeDelayMs ?? 10;
  const spanOptions = { content: settings.content, maxAttributeBytes: settings.maxAttributeBytes };
  const records = await openExportRecords(stateDir, log);
  const ctx: TrackerContext = {
    prices: options.prices,
    spanOptions,
    parse: parseOptionsFor(spanOptions),
    records,
    log,
    malformed: createMalformedLines(log, () => clock.monotonic()),
  };

  const saved = await loadWatchState(stateDir);
  if (saved.kind === 'corrupt') {
    log.warn('watch state was unreadable; starting afresh', {
      file: watchStatePath(stateDir),
      reason: saved.reason,
      movedTo: saved.movedTo,
    });
  }
  const prior: WatchState | null = saved.kind === 'ok' ? saved.value : null;
  const firstStart = prior === null;
  const createdAt = prior?.createdAt ?? new Date(clock.now()).toISOString();

  const entries = new Map<string, SessionEntry>();
  const router = new EventRouter({ roots, ownerOf });
  let stopping = false;
  let rotation = 0;

  // ---- persistence ---------------------------------------------------------
  const snapshot = (): WatchState => {
    const sessions: Record<string, SessionRecord> = {};
    for (const entry of entries.values())
      sessions[entry.key] = entry.tracker === null ? entry.record : entry.tracker.toRecord(true);
    return { version: 1, createdAt, sessions };
  };
  const saver = createStateSaver(stateDir, records, snapshot, log, clock);
  const persist = saver.save;
  const persistSoon = saver.saveSoon;

  // ---- sessions ------------------------------------------------------------
  const run = (entry: SessionEntry, job: () => Promise<void> | void): Promise<void> =>
    entry.schedule.run(job);

  const entryFor = (key: string, sessionId: string): SessionEntry => {
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = {
        key,
        sessionId,
        record: newRecord(),
        tracker: null,
        schedule: new SessionSchedule({
          clock,
          rebuildDelayMs: recomputeDelayMs,
          onError: (err) =>
            log.error('session processing failed', { session: sessionId, error: err }),
        }),
      };
      entries.set(key, entry);
    }
    return entry;
  };

  const demote = (entry: SessionEntry): void => {
    if (entry.tracker === null) return;
    entry.record = entry.tracker.toRecord(false);
    entry.tracker = null;
    entry.schedule.cancelTimers();
    log.debug('session quiet and delivered; unloaded', { session: entry.sessionId });
    persistSoon();
  };

  /** Unload a session whose work is flushed and delivered. */
  const maybeDemote = (entry: SessionEntry): void => {
    const t = entry.tracker;
    if (t === null || t.pending > 0) return;
    if (t.flushMode === 'idle' || (once && t.flushMode === 'final')) demote(entry);
  };

  const recomputeNow = (entry: SessionEntry): void => {
    const t = entry.tracker;
    if (t === null) return;
    const folded = t.foldedTurns;
    if (entry.schedule.timed(() => t.recompute())) queue.kick();
    if (t.foldedTurns !== folded) entry.schedule.forgetCost();
    maybeDemote(entry);
  };

  const scheduleRecompute = (entry: SessionEntry): void => {
    if (stopping) return;
    entry.schedule.requestRebuild(async () => {
      await entry.tracker?.catchUp();
      recomputeNow(entry);
    });
  };

  const idleFlush = (entry: SessionEntry): void => {
    const t = entry.tracker;
    if (t === null || stopping) return;
    if (t.unfinished)
      log.info('session idle; sending its unfinished work marked incomplete', {
        session: entry.sessionId,
      });
    t.setFlush('idle');
    recomputeNow(entry);
  };

  const startIdleTimer = (entry: SessionEntry, delayMs: number): void => {
    if (once || stopping) return;
    entry.schedule.armIdle(delayMs, () => idleFlush(entry));
  };

  /** Loads a session (every file from byte 0) and queues what is ready. */
  const activate = (entry: SessionEntry): Promise<void> =>
    run(entry, async () => {
      if (entry.tracker !== null || stopping) return;
      const tracker = new SessionTracker(entry.key, entry.sessionId, ctx, entry.record);
      const sessionDir = join(dirname(entry.key), entry.sessionId);
      const nested = await subagentFiles(sessionDir);
      for (const a of nested.agents) tracker.addFile(a.file);
      for (const m of nested.metas) tracker.addFile(m);
      for (const path of router.flatAgentsOf(entry.key)) tracker.addFile(path);
      await tracker.load();
      // Deleted (or stopping) while it was being read.
      if (entries.get(entry.key) !== entry || stopping) return;
      entry.tracker = tracker;
      if (once) tracker.setFlush('final');
      const paths = [
        entry.key,
        ...Object.keys(entry.record.files),
        ...nested.agents.map((a) => a.file),
      ];
      const mtimes = await Promise.all(paths.map(async (p) => (await fileInfo(p))?.mtimeMs ?? 0));
      const quietFor = clock.now() - Math.max(0, ...mtimes);
      log.debug('session loaded', { session: entry.sessionId, quietForMs: Math.round(quietFor) });
      if (!once && quietFor >= idleMs) {
        // Long quiet (history being backfilled, or a session left mid-turn): flush now.
        tracker.setFlush('idle');
      } else {
        startIdleTimer(entry, Math.max(1, idleMs - quietFor));
      }
      recomputeNow(entry);
    });

  const ingest = (entry: SessionEntry, path: string): Promise<void> =>
    run(entry, async () => {
      const t = entry.tracker;
      if (t === null || stopping) return;
      if (await t.ingest(path)) {
        startIdleTimer(entry, idleMs);
        scheduleRecompute(entry);
      }
    });

  const drop = (entry: SessionEntry): void => {
    entry.schedule.stop();
    entries.delete(entry.key);
    entry.tracker = null;
    router.forgetSession(entry.key);
    log.info('session file deleted; forgetting the session', { session: entry.sessionId });
    persistSoon();
  };

  const forgetFile = (entry: SessionEntry, path: string): void => {
    delete entry.record.files[path];
    entry.tracker?.forget(path);
    router.forgetFile(path);
    persistSoon();
  };

  // ---- delivery ------------------------------------------------------------
  const queue = createDeliveryQueue<Sent>({
    makeSink: options.makeSink ?? ((policy) => otlpSink(settings, options.resource, policy)),
    log,
    clock,
    maxRetries: once ? 5 : Infinity,
    maxBackoffMs: once ? 5000 : 30_000,
    lingerMs: options.lingerMs ?? 5,
    maxBatchSpans: settings.maxBatchSpans,
    pull(max): Batch<Sent> {
      const items = takeRoundRobin(entries.values(), rotation, max);
      rotation += 1;
      return { items, spans: items.map((i) => i.out.span) };
    },
    async onAccepted(items) {
      for (const [tracker, { entry, outs }] of byTracker(items)) {
        tracker.ack(outs);
        if (entry.tracker === tracker) void run(entry, () => maybeDemote(entry));
      }
      log.debug('spans delivered', { spans: items.length });
      await persist();
    },
    async onRefused(items) {
      for (const [tracker, { entry, outs }] of byTracker(items)) {
        tracker.reject(outs);
        if (entry.tracker === tracker) void run(entry, () => maybeDemote(entry));
      }
      await persist();
    },
    onReturned(items) {
      for (const [tracker, { outs }] of byTracker(items)) tracker.requeue(outs);
    },
  });

  // ---- filesystem events -----------------------------------------------------
  const apply = async (route: Route): Promise<void> => {
    if (route.kind === 'dir-removed') {
      for (const entry of [...entries.values()]) {
        if (isUnder(entry.key, route.path)) drop(entry);
        else
          for (const path of Object.keys(entry.record.files))
            if (isUnder(path, route.path)) forgetFile(entry, path);
      }
      return;
    }
    if (route.kind !== 'changed') {
      const entry = entries.get(route.key);
      if (entry === undefined) return;
      if (route.kind === 'session-removed') drop(entry);
      else forgetFile(entry, route.path);
      return;
    }
    const entry = entryFor(route.key, route.sessionId);
    if (entry.record.files[route.path] === undefined && entry.tracker?.hasFile(route.path) !== true)
      entry.record.files[route.path] = { ino: 0, size: 0 };
    if (entry.tracker === null) void activate(entry);
    await ingest(entry, route.path);
  };

  const handleEvent = async (ev: WatchEvent): Promise<void> => {
    if (stopping) return;
    const route = await router.route(ev);
    if (route !== null && !stopping) await apply(route);
  };

  let scanned = false;
  const buffered: WatchEvent[] = [];
  const onEvent = (ev: WatchEvent): void => {
    if (!scanned) {
      buffered.push(ev);
      return;
    }
    handleEvent(ev).catch((err: unknown) =>
      log.error('cannot process file event', { file: ev.path, error: err }),
    );
  };

  const wanted = (path: string, isDir: boolean | undefined): boolean => {
    const root = router.rootOf(path);
    return root !== undefined && isWatchedPath(path, isDir, root);
  };
  let watcher: DirWatcher | null = null;
  if (!once) {
    watcher = await watchDirs(roots, {
      onEvent,
      onError: (err) => {
        const hint =
          (err as NodeJS.ErrnoException).code === 'ENOSPC'
            ? 'inotify watch limit reached: raise fs.inotify.max_user_watches'
            : undefined;
        log.error('file watching failed', { error: err, hint });
      },
      wanted,
    });
    await watcher.ready;
  }

  // ---- startup scan ----------------------------------------------------------
  interface Pending {
    entry: SessionEntry;
    lastWrite: number;
  }
  const toLoad: Pending[] = [];
  // The dirs as the watcher's walk listed them (one walk for both); --once walks without watching.
  const listing: DirListing =
    watcher?.takeListing() ?? walkDirs(roots, { wantDir: (p) => wanted(p, true) });
  const startedAt = clock.now();
  for (const { files: s, current, lastWrite, flatAgents } of scanProjects(roots, listing, log)) {
    const key = s.mainFile;
    for (const file of flatAgents) router.noteFlatAgent(file, key, s.sessionId);
    const entry = entryFor(key, s.sessionId);
    const plan = planSession(
      { key, current, lastWrite },
      { prior, backfill: options.backfill, now: startedAt, idleMs },
    );
    entry.record = plan.record;
    if (plan.load) toLoad.push({ entry, lastWrite });
  }
  // Saved at once: a daemon killed before its first delivery must not take the
  // sessions written meanwhile for history on its next start.
  await persist();
  scanned = true;
  log.info('watching', {
    projectsDirs: roots,
    endpoint: settings.endpoint,
    stateDir,
    sessions: entries.size,
    loading: toLoad.length,
    firstStart,
    backfill: options.backfill,
    once,
  });
  for (const ev of buffered.splice(0)) onEvent(ev);

  /** Waits until a loaded session has nothing left to send (or delivery gave up). */
  const drained = async (entry: SessionEntry): Promise<void> => {
    for (;;) {
      await entry.schedule.idle();
      const t = entry.tracker;
      if (t === null || t.pending === 0 || stopping || queue.gaveUp) return;
      queue.kick();
      await queue.whenIdle();
    }
  };

  // Most recently written first: the session in use matters more than history.
  toLoad.sort((a, b) => b.lastWrite - a.lastWrite);
  const ready = (async () => {
    for (const { entry, lastWrite } of toLoad) {
      if (stopping) break;
      await activate(entry);
      // History is delivered and unloaded one session at a time: memory stays bounded.
      if (once || clock.now() - lastWrite >= idleMs) {
        await drained(entry);
        await run(entry, () => maybeDemote(entry));
      }
    }
  })();

  const rebuildsPending = (): boolean =>
    [...entries.values()].some((e) => e.schedule.rebuildPending);
  const settledAll = async (): Promise<void> => {
    for (;;) {
      await ready;
      await Promise.all([...entries.values()].map((e) => e.schedule.idle()));
      if (rebuildsPending()) {
        await sleepOn(clock, recomputeDelayMs + 1);
        continue;
      }
      await queue.whenIdle();
      const outstanding = [...entries.values()].some(
        (e) => e.tracker !== null && e.tracker.hasOutbox,
      );
      if ((!outstanding || queue.gaveUp || stopping) && !rebuildsPending() && !queue.busy) return;
      if (outstanding) queue.kick();
    }
  };

  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => {
    resolveDone = r;
  });
  void done.then(() => lock.release());
  let stopPromise: Promise<number> | null = null;

  const stop = (reason = 'stop'): Promise<number> => {
    if (stopPromise !== null) return stopPromise;
    stopPromise = (async () => {
      const deadline = clock.now() + (options.stopFlushMs ?? 3000);
      log.info('stopping; flushing what is complete', { reason });
      stopping = true;
      await watcher?.close();
      saver.cancelSoon();
      const flushes: Promise<void>[] = [];
      for (const entry of entries.values()) {
        entry.schedule.stop();
        if (entry.tracker !== null) {
          // Turns the transcript shows as ended leave now (core/finality.ts, mode final).
          const tracker = entry.tracker;
          flushes.push(
            run(entry, async () => {
              // Whatever was written before the signal counts, even if its event is still on its way.
              await tracker.ingestAll();
              tracker.setFlush('final');
              if (tracker.recompute()) queue.kick();
            }),
          );
        }
      }
      await until(clock, Promise.all(flushes), deadline);
      await until(clock, settledAll(), deadline);
      queue.abort();
      await until(clock, queue.whenIdle(), clock.now() + 300);
      await persist();
      const undelivered = [...entries.values()].reduce((n, e) => n + (e.tracker?.pending ?? 0), 0);
      log.info('stopped', { undeliveredSpans: undelivered, malformedLines: ctx.malformed?.count });
      return 0;
    })();
    void stopPromise.then(resolveDone);
    return stopPromise;
  };

  if (once) {
    void (async () => {
      await ready;
      await settledAll();
      await persist();
      const undelivered = [...entries.values()].reduce((n, e) => n + (e.tracker?.pending ?? 0), 0);
      if (queue.gaveUp)
        log.error('could not deliver every span; they will be sent by the next run', {
          undeliveredSpans: undelivered,
        });
      log.info('done', { undeliveredSpans: undelivered, malformedLines: ctx.malformed?.count });
      resolveDone(queue.gaveUp ? 1 : 0);
    })();
  }

  return { ready, done, stop, settled: settledAll };
}
