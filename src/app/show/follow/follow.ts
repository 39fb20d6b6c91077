// `ccotel show --follow`: the session read as it is, then followed as its files
// grow. Each change is read by SessionFollow; what finished is handed to
// onEvents, and the snapshot to onFrame. No timer runs while nothing runs:
// the files' events wake it; while a call runs, one redraw a second moves its
// clock.
import { dirname } from 'node:path';
import type { Clock, Timer } from '../../../core/clock.js';
import { isUnder } from '../../../core/transcript/paths.js';
import { loadPriceTable } from '../../../adapters/config/price-file.js';
import { watchDirs } from '../../../adapters/fswatch/dir-watcher.js';
import type { SessionFiles } from '../../../adapters/files/session-files.js';
import { resolveSession } from '../resolve-target.js';
import { latestSession } from './latest-session.js';
import { SessionFollow, type FollowEvent, type FollowSnapshot } from './session-follow.js';

const TRANSCRIPT_FILE = /\.(jsonl|meta\.json)$/;

/** Clocks of running calls move this often. */
export const TICK_MS = 1000;

export interface FollowOptions {
  /** A `show` target, or null: the newest session of `cwd`'s project dir, else anywhere. */
  target: string | null;
  cwd: string;
  projectsDirs: string[];
  pricingFile: string | null;
  /** Read what is there, tell it, and end (no following). */
  once: boolean;
  clock: Clock;
  /** Resolves when the user quits (q, Ctrl-C, a signal). */
  stop: Promise<unknown>;
  onEvents(events: FollowEvent[]): void;
  onFrame?(snapshot: FollowSnapshot): void;
  onError(error: Error): void;
}

export interface Following {
  files: SessionFiles;
  /** Draws again now (a resize). */
  redraw(): void;
  /** Resolves once following has ended. */
  done: Promise<void>;
}

export async function followSession(options: FollowOptions): Promise<Following> {
  const files =
    options.target === null
      ? latestSession(options.cwd, options.projectsDirs)
      : await resolveSession(options.target, options.projectsDirs);
  const follow = new SessionFollow(files, await loadPriceTable(options.pricingFile ?? undefined));
  await follow.load();
  let tick: Timer | null = null;
  const draw = (): void => {
    tick?.cancel();
    tick = null;
    options.onEvents(follow.takeEvents());
    options.onFrame?.(follow.snapshot(options.clock.now()));
    if (options.onFrame !== undefined && follow.running)
      tick = options.clock.setTimer(TICK_MS, draw);
  };
  draw();
  if (options.once) return { files, redraw: draw, done: Promise.resolve() };
  const sessionDir = files.mainFile.replace(/\.jsonl$/, '');
  // One change read at a time, in the order the events came.
  let reading = Promise.resolve();
  const watcher = await watchDirs([dirname(files.mainFile)], {
    wanted: (path) => path === files.mainFile || path === sessionDir || isUnder(path, sessionDir),
    onEvent: (event) => {
      if (event.type !== 'add' && event.type !== 'change') return;
      // Transcripts and their meta sidecars; tool output and workflow files are not read here.
      if (event.path !== files.mainFile && !TRANSCRIPT_FILE.test(event.path)) return;
      reading = reading
        .then(() => follow.changed(event.path))
        .then(draw, (err: unknown) => options.onError(err as Error));
    },
    onError: (err) => options.onError(err),
  });
  await watcher.ready;
  const done = options.stop.then(async () => {
    tick?.cancel();
    await watcher.close();
    await reading;
  });
  return { files, redraw: draw, done };
}
