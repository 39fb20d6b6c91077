// The end of `ccotel watch --once`: once everything found is read and sent
// (or delivery gave up), the state is saved and the run ends; exit code 1
// says some spans could not be delivered (the next run sends them).
import type { Logger } from '../../../adapters/logger.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import type { StateSaver } from '../state/state-saver.js';

export interface OnceParts {
  /** The start-up loads. */
  ready: Promise<void>;
  /** Resolves when nothing is left to read, rebuild or send. */
  settle(): Promise<void>;
  saver: StateSaver;
  registry: SessionRegistry;
  queue: DeliveryQueue;
  log: Logger;
  malformedLines(): number | undefined;
}

/** Waits for the run to settle, then reports its exit code to `finished`. */
export async function finishOnce(
  parts: OnceParts,
  finished: (code: number) => void,
): Promise<void> {
  const { saver, registry, queue, log } = parts;
  await parts.ready;
  await parts.settle();
  // Nothing writes after the run has ended: an idle timer or a pending
  // saveSoon that fired after `done` wrote the state into a dir whose owner
  // was already removing it (ENOTEMPTY in the watch-corpus test). The save
  // below holds everything they would have written.
  for (const entry of registry.values()) entry.schedule.stop();
  saver.cancelSoon();
  await saver.save();
  const undelivered = registry.undeliveredSpans();
  if (queue.gaveUp)
    log.error('could not deliver every span; they will be sent by the next run', {
      undeliveredSpans: undelivered,
    });
  log.info('done', { undeliveredSpans: undelivered, malformedLines: parts.malformedLines() });
  finished(queue.gaveUp ? 1 : 0);
}
