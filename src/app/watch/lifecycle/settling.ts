// When the daemon has nothing left to do: no line waiting to be read or
// rebuilt, no span waiting to be sent (or delivery gave up, or it is
// stopping). Tests and --once wait for this; so does a stop, up to its deadline.
import type { Clock } from '../../../core/clock.js';
import { sleepOn } from './clock-waits.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { RunState } from './run-state.js';
import type { SessionEntry, SessionRegistry } from '../sessions/session-registry.js';

/** Waits until a loaded session has nothing left to send (or delivery gave up). */
export async function drained(
  entry: SessionEntry,
  queue: DeliveryQueue,
  run: RunState,
): Promise<void> {
  for (;;) {
    await entry.schedule.idle();
    const t = entry.tracker;
    if (t === null || t.pending === 0 || run.stopping || queue.gaveUp) return;
    queue.kick();
    await queue.whenIdle();
  }
}

export interface SettleParts {
  /** The start-up loads. */
  ready: Promise<void>;
  registry: SessionRegistry;
  queue: DeliveryQueue;
  run: RunState;
  clock: Clock;
  /** Batching of new lines before a rebuild (ms): a pending rebuild is waited out this long. */
  recomputeDelayMs: number;
}

/** Resolves when no line is waiting to be processed and no span to be sent. */
export function settler(parts: SettleParts): () => Promise<void> {
  const { ready, registry, queue, run, clock, recomputeDelayMs } = parts;
  const rebuildsPending = (): boolean =>
    [...registry.values()].some((e) => e.schedule.rebuildPending);
  return async () => {
    for (;;) {
      await ready;
      await Promise.all([...registry.values()].map((e) => e.schedule.idle()));
      if (rebuildsPending()) {
        await sleepOn(clock, recomputeDelayMs + 1);
        continue;
      }
      await queue.whenIdle();
      const outstanding = [...registry.values()].some(
        (e) => e.tracker !== null && e.tracker.hasOutbox,
      );
      if ((!outstanding || queue.gaveUp || run.stopping) && !rebuildsPending() && !queue.busy)
        return;
      if (outstanding) queue.kick();
    }
  };
}
