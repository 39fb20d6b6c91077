// Stopping the daemon (SIGINT/SIGTERM, or stop()): no new work starts, every
// loaded session reads what was written before the signal and sends the turns
// that ended, delivery gets until a deadline (stopFlushMs), then what is left
// is given back to the sessions and the state saved, so the next run resends
// it. Stopping twice returns the first stop.
import type { Clock } from '../../../core/clock.js';
import type { DirWatcher } from '../../../adapters/fswatch/dir-watcher.js';
import type { Logger } from '../../../adapters/logger.js';
import { until } from './clock-waits.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { RunState } from './run-state.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import type { StateSaver } from '../state/state-saver.js';

export interface ShutdownParts {
  run: RunState;
  clock: Clock;
  log: Logger;
  /** Time given to delivery when stopping (ms). */
  stopFlushMs: number;
  watcher: DirWatcher | null;
  saver: StateSaver;
  registry: SessionRegistry;
  queue: DeliveryQueue;
  /** Resolves when nothing is left to read, rebuild or send. */
  settle(): Promise<void>;
  malformedLines(): number | undefined;
}

/** Stops every session's timers; each loaded one reads what is left and queues the turns that ended. */
function finalFlushes(registry: SessionRegistry, queue: DeliveryQueue): Promise<void>[] {
  const flushes: Promise<void>[] = [];
  for (const entry of registry.values()) {
    entry.schedule.stop();
    if (entry.tracker !== null) {
      // Turns the transcript shows as ended leave now (core/finality.ts, mode final).
      const tracker = entry.tracker;
      flushes.push(
        entry.schedule.run(async () => {
          // Whatever was written before the signal counts, even if its event is still on its way.
          await tracker.ingestAll();
          tracker.setFlush('final');
          if (tracker.recompute()) queue.kick();
        }),
      );
    }
  }
  return flushes;
}

async function shutDown(parts: ShutdownParts, reason: string): Promise<number> {
  const { run, clock, log, watcher, saver, registry, queue } = parts;
  const deadline = clock.now() + parts.stopFlushMs;
  log.info('stopping; flushing what is complete', { reason });
  run.stopping = true;
  await watcher?.close();
  saver.cancelSoon();
  await until(clock, Promise.all(finalFlushes(registry, queue)), deadline);
  await until(clock, parts.settle(), deadline);
  queue.abort();
  await until(clock, queue.whenIdle(), clock.now() + 300);
  await saver.save();
  log.info('stopped', {
    undeliveredSpans: registry.undeliveredSpans(),
    malformedLines: parts.malformedLines(),
  });
  return 0;
}

/** stop(): the first call shuts down and reports its exit code to `stopped`; later calls share it. */
export function stopper(
  parts: ShutdownParts,
  stopped: (code: number) => void,
): (reason?: string) => Promise<number> {
  let stopPromise: Promise<number> | null = null;
  return (reason = 'stop') => {
    if (stopPromise !== null) return stopPromise;
    stopPromise = shutDown(parts, reason);
    // The caller awaits stopPromise itself and sees any failure there.
    void stopPromise.then(stopped);
    return stopPromise;
  };
}
