// The daemon's report of malformed transcript lines: each logged once as a
// warning with its file and line (as `export` prints them), at most
// PER_WINDOW per file in any WINDOW_MS so that a file of garbage cannot flood
// the log, and all of them counted for the daemon's status lines. A session is
// re-read from the start after a reset, which finds the same lines again:
// they are known by file and line and not reported twice.
import type { Logger } from '../../../adapters/logger.js';
import type { ReadWarning } from '../../../core/view/waterfall-row.js';

const PER_WINDOW = 10;
const WINDOW_MS = 10 * 60_000;

export interface MalformedLines {
  /** Reports the warnings of `list` not seen before (the list may grow between calls). */
  see(list: readonly ReadWarning[]): void;
  /** Distinct malformed lines seen since start. */
  readonly count: number;
}

interface FileWindow {
  startedAt: number;
  logged: number;
  held: number;
}

export function createMalformedLines(log: Logger, now: () => number): MalformedLines {
  const known = new Set<string>();
  // How far each warnings list has been read: lists only grow, and a reset starts a new one.
  const readUpTo = new WeakMap<readonly ReadWarning[], number>();
  const windows = new Map<string, FileWindow>();

  const report = (w: ReadWarning): void => {
    const at = now();
    let win = windows.get(w.file);
    if (win === undefined || at - win.startedAt >= WINDOW_MS) {
      if (win !== undefined && win.held > 0)
        log.warn('malformed transcript lines not logged one by one', {
          file: w.file,
          lines: win.held,
        });
      win = { startedAt: at, logged: 0, held: 0 };
      windows.set(w.file, win);
    }
    if (win.logged < PER_WINDOW) {
      win.logged += 1;
      log.warn('malformed transcript line; skipped', {
        file: w.file,
        line: w.line,
        reason: w.reason,
      });
      if (win.logged === PER_WINDOW)
        log.warn('more malformed lines in this file are counted, not logged, for 10 minutes', {
          file: w.file,
        });
    } else win.held += 1;
  };

  return {
    see(list) {
      for (let i = readUpTo.get(list) ?? 0; i < list.length; i += 1) {
        const w = list[i] as ReadWarning;
        const key = `${w.file}\u0000${w.line}`;
        if (known.has(key)) continue;
        known.add(key);
        report(w);
      }
      readUpTo.set(list, list.length);
    },
    get count() {
      return known.size;
    },
  };
}
