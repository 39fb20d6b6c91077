// Saving the daemon's state: export-state records first, then watch-state,
// each atomically. Saves never overlap; calls made while one is running share
// the next save (it will include their changes). A failing disk is logged
// once, and once more when saving works again; delivery goes on meanwhile.
import type { Clock, Timer } from '../../../core/clock.js';
import type { Logger } from '../../../adapters/logger.js';
import type { ExportRecords } from './export-records.js';
import { saveWatchState, type WatchState } from './watch-state.js';

/** How long saveSoon waits, so a burst of changes shares one write. */
export const SAVE_SOON_MS = 200;

export interface StateSaver {
  /** Saves now (after any save under way); resolves once written or failed. */
  save(): Promise<void>;
  /** Saves within SAVE_SOON_MS: for changes that need not be durable at once. */
  saveSoon(): void;
  /** Drops a pending saveSoon (the caller saves itself). */
  cancelSoon(): void;
}

export function createStateSaver(
  stateDir: string,
  records: ExportRecords,
  snapshot: () => WatchState,
  log: Logger,
  clock: Clock,
): StateSaver {
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  let timer: Timer | null = null;
  let failing = false;

  const write = async (): Promise<void> => {
    try {
      // export-state first: a crash in between leaves marks that only cause byte-identical resends.
      if (records.dirty) await records.save();
      await saveWatchState(stateDir, snapshot());
      if (failing) log.info('state saved again', { stateDir });
      failing = false;
    } catch (err) {
      if (!failing) log.error('cannot save state; will retry', { stateDir, error: err });
      failing = true;
    }
  };

  const save = (): Promise<void> => {
    if (queued !== null) return queued;
    const next = chain.then(() => {
      queued = null;
      return write();
    });
    queued = next;
    chain = next;
    return next;
  };

  return {
    save,
    saveSoon() {
      if (timer !== null) return;
      timer = clock.setTimer(SAVE_SOON_MS, () => {
        timer = null;
        void save();
      });
    },
    cancelSoon() {
      timer?.cancel();
      timer = null;
    },
  };
}
