// `ccotel watch --once` writes nothing once `done` has resolved: its final
// save holds everything, and no timer the run armed is left to fire into the
// state dir afterwards, where the caller may already be removing it
// (ENOTEMPTY, seen once in watch-corpus in CI; fixed in once-finish.ts). The
// timer that did it was a pending saveSoon (a session unloaded after its last
// delivery); with --once no session arms an idle or rebuild timer today, and
// one left pending would fail the last check here too. The daemon runs on a
// manual clock held still until `done`, so whatever it armed is still pending
// then; the clock is then moved far past every delay, and the state dir must
// stay as it was.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { SAVE_SOON_MS } from '../../src/app/watch/state/state-saver.js';
import { manualClock, type ManualClock } from '../support/manual-clock.js';
import {
  FIXTURES,
  TOOL_HEAVY,
  differingRepeats,
  exportSpans,
  fixtureLines,
  runDaemon,
  sceneForEachTest,
  settingsFor,
  writeLines,
} from './watch-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

const scene = sceneForEachTest();

const SHORT = join(FIXTURES, 'real', 'marot_spotter__test_fixtures_transcripts__short.jsonl');
/** TOOL_HEAVY cut here is a session still at work: its last turn has not ended. */
const ACTIVE_LINES = 30;

const sessionIdOf = (lines: string[]): string =>
  (JSON.parse(lines.find((l) => l.includes('"sessionId"')) ?? '{}') as { sessionId: string })
    .sessionId;

/**
 * A manual clock that does not move by itself: `runHeld` fires the timers due
 * now (delivery's linger, set to 0 below) as they are set, and nothing later,
 * so every longer timer the run armed is still pending when it ends.
 */
function heldClock(): { clock: Clock; manual: ManualClock; runHeld<T>(w: Promise<T>): Promise<T> } {
  const manual = manualClock(Date.now());
  let timerSet = false;
  let wake: () => void = () => undefined;
  const clock: Clock = {
    now: manual.now,
    monotonic: manual.monotonic,
    setTimer(ms, fn) {
      const timer = manual.setTimer(ms, fn);
      timerSet = true;
      wake();
      return timer;
    },
  };
  async function runHeld<T>(work: Promise<T>): Promise<T> {
    let over = false;
    const ended = work.finally(() => (over = true));
    // Bounded: each round needs a new timer, and a --once run sets a few per session.
    for (let round = 0; round < 10_000 && !over; round += 1) {
      if (!timerSet) await Promise.race([ended, new Promise<void>((r) => (wake = r))]);
      timerSet = false;
      await manual.advance(0);
    }
    if (!over) throw new Error('runHeld: the run did not end within 10000 timers');
    return ended;
  }
  return { clock, manual, runHeld };
}

/**
 * Lets the fs requests already made (a save a timer just started) complete, so
 * that what they write is there to see. A save's steps follow each other
 * without a pause, so one is always in flight until it ends: an open, write or
 * fsync (FSReqPromise), or a file handle being closed (CloseReq).
 */
async function fsRequestsDone(): Promise<void> {
  const busy = (): boolean =>
    process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r === 'CloseReq');
  for (let turn = 0; turn < 100_000 && busy(); turn += 1)
    await new Promise<void>((r) => setImmediate(r));
}

/** Each file in the state dir: its bytes, mtime and inode (an atomic rewrite changes the inode). */
async function stateDirNow(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const { mtimeMs, ino } = await stat(path);
    out[name] = { bytes: await readFile(path, 'utf8'), mtimeMs, ino };
  }
  return out;
}

describe.skipIf(ON_WINDOWS)(
  'watch --once, quiet after done (skipped on Windows: fs.watch reports and holds dirs differently there, and watch is not yet checked on Windows)',
  () => {
    describe('ccotel watch --once after done', () => {
      it('leaves no timer behind: the state dir is not written again, nor re-created once removed', async () => {
        const active = (await fixtureLines(TOOL_HEAVY)).slice(0, ACTIVE_LINES);
        const closed = await fixtureLines(SHORT);
        await writeLines(join(scene.dirs.project, `${sessionIdOf(active)}.jsonl`), active, 0);
        await writeLines(join(scene.dirs.project, `${sessionIdOf(closed)}.jsonl`), closed, 0);
        const settings = settingsFor(scene.receiver, scene.dirs);

        const { clock, manual, runHeld } = heldClock();
        // lingerMs 0: delivery goes out without the clock moving; the files were
        // just written, so on this clock both sessions are in use, not history.
        const run = await runDaemon(settings, { once: true, backfill: true, clock, lingerMs: 0 });
        expect(await runHeld(run.daemon.done)).toBe(0);
        const pendingAtDone = manual.pending;

        // The spans: everything export builds, less the open turn --once leaves for its next run.
        const all = await exportSpans(scene.dirs.projects, settings);
        const open = new Set(
          [...all.values()]
            .filter((s) => s.parentSpanId === null && !s.complete)
            .map((s) => s.traceId),
        );
        expect(open.size, 'the active session has one open turn').toBe(1);
        const expected = [...all.values()].filter((s) => !open.has(s.traceId)).map((s) => s.spanId);
        const got = scene.receiver.spans();
        expect(differingRepeats(got)).toEqual([]);
        expect(expected.length).toBeGreaterThan(0);
        expect(new Set(got.map((s) => s.spanId))).toEqual(new Set(expected));

        // Past saveSoon's delay: the state files are the ones the final save wrote.
        const atDone = await stateDirNow(scene.dirs.state);
        expect(Object.keys(atDone)).toContain('watch-state.json');
        await manual.advance(SAVE_SOON_MS * 10);
        await fsRequestsDone();
        expect(await stateDirNow(scene.dirs.state), 'state dir written after done').toEqual(atDone);

        // The caller removes the state dir; past --idle-timeout nothing brings it back.
        await rm(scene.dirs.state, { recursive: true });
        await manual.advance(settings.idleTimeoutMs * 2);
        await fsRequestsDone();
        expect(existsSync(scene.dirs.state), 'state dir re-created after done').toBe(false);
        expect(pendingAtDone, 'timers still pending when done resolved').toBe(0);
      });
    });
  },
);
