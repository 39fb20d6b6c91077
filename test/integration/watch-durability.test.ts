// `ccotel watch` in-process: first start without and with --backfill,
// truncated and replaced transcripts, a collector outage, the idle timeout,
// a restart mid-turn and --once. Duplicates are allowed only byte-identical,
// except a span first sent incomplete at an idle timeout and later completed.
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolSpanIdFor, traceIdFor, turnSpanIdFor } from '../../src/core/spans/ids.js';
import type { DecodedSpan } from '../support/otlp-decode.js';
import type { OtlpReceiver } from '../support/otlp-receiver.js';
import {
  SUBAGENT,
  TOOL_HEAVY,
  differingRepeats,
  exportReadOnly,
  exportSpans,
  fixtureLines,
  runDaemon,
  settingsFor,
  sceneForEachTest,
  waitForIds,
  writeLines,
} from './watch-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

const scene = sceneForEachTest();

interface Rec {
  uuid?: string;
  sessionId?: string;
  message?: { content?: unknown };
}
/** The fixtures' last turns have no turn_duration: their roots leave once the session is quiet this long. */
const QUIET_MS = 1500;
const parse = (line: string): Rec => JSON.parse(line) as Rec;
const sessionIdOf = (lines: string[]): string =>
  lines.map(parse).find((r) => r.sessionId !== undefined)?.sessionId ?? 'unknown';
const indexOf = (lines: string[], needle: string): number => {
  const i = lines.findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line with ${needle}`);
  return i;
};
const resultIdAt = (lines: string[], i: number): string =>
  /"tool_use_id":"([^"]+)"/.exec(lines[i] ?? '')?.[1] ?? '';
const traceOfPrompt = (lines: string[], needle: string): string =>
  traceIdFor(parse(lines[indexOf(lines, needle)] ?? '').uuid ?? '');
const countsById = (spans: DecodedSpan[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const s of spans) m.set(s.spanId, (m.get(s.spanId) ?? 0) + 1);
  return m;
};

/** The daemon started on the empty projects dir, tool_heavy.jsonl's lines and the file to write them to. */
async function daemonAndHeavy(idleTimeoutMs = QUIET_MS) {
  const settings = settingsFor(scene.receiver, scene.dirs, { idleTimeoutMs });
  const run = await runDaemon(settings);
  scene.running = run;
  await run.daemon.ready;
  const heavy = await fixtureLines(TOOL_HEAVY);
  return { settings, run, heavy, file: join(scene.dirs.project, `${sessionIdOf(heavy)}.jsonl`) };
}

describe.skipIf(ON_WINDOWS)(
  'watch, durability (skipped on Windows: fs.watch reports and holds dirs differently there, and watch is not yet checked on Windows)',
  () => {
    describe('ccotel watch, first start', () => {
      it('sends no old history without --backfill; the turn in progress is followed; export then sends only the history', async () => {
        const settings = settingsFor(scene.receiver, scene.dirs, { idleTimeoutMs: QUIET_MS });
        const heavy = await fixtureLines(TOOL_HEAVY);
        const sub = await fixtureLines(SUBAGENT);
        const subFile = join(scene.dirs.project, `${sessionIdOf(sub)}.jsonl`);
        // History: a finished session, and one whose last turn is under way.
        await writeLines(join(scene.dirs.project, `${sessionIdOf(heavy)}.jsonl`), heavy, 0);
        const beads = indexOf(sub, 'create the beads');
        const firstBash = sub.findIndex((l, i) => i > beads && l.includes('"tool_result"'));
        // Through the next response's first line: the call's own response is over.
        await writeLines(subFile, sub.slice(0, firstBash + 2), 0);

        scene.running = await runDaemon(settings);
        await scene.running.daemon.ready;
        await scene.running.daemon.settled();
        const liveTrace = traceOfPrompt(sub, 'create the beads');
        // Only spans of the turn in progress may have left: its first Bash call had returned
        // and the response that issued it was over.
        expect(scene.receiver.spans().every((s) => s.traceId === liveTrace)).toBe(true);
        expect(scene.receiver.spans().map((s) => s.spanId)).toContain(
          toolSpanIdFor(resultIdAt(sub, firstBash)),
        );

        await writeLines(subFile, sub.slice(firstBash + 2));
        const expected = await exportSpans(scene.dirs.projects, settings);
        const live = [...expected.values()].filter((s) => s.traceId === liveTrace);
        const got = await waitForIds(scene.receiver, new Map(live.map((s) => [s.spanId, s])));
        expect(got.every((s) => s.traceId === liveTrace)).toBe(true);
        expect(differingRepeats(got)).toEqual([]);

        await scene.running.daemon.settled();
        const summary = await exportReadOnly(settings);
        expect(summary.turns).toBe(4);
        expect(summary.turnsUnchanged).toBe(1);
        expect(summary.spansSent).toBe(expected.size - live.length);
      });

      it('with --backfill sends the history too, and a later export sends nothing', async () => {
        const settings = settingsFor(scene.receiver, scene.dirs, { idleTimeoutMs: QUIET_MS });
        const heavy = await fixtureLines(TOOL_HEAVY);
        const sub = await fixtureLines(SUBAGENT);
        await writeLines(join(scene.dirs.project, `${sessionIdOf(heavy)}.jsonl`), heavy, 0);
        const subFile = join(scene.dirs.project, `${sessionIdOf(sub)}.jsonl`);
        const cut = indexOf(sub, 'create the beads') + 3;
        await writeLines(subFile, sub.slice(0, cut), 0);
        scene.running = await runDaemon(settings, { backfill: true });
        await scene.running.daemon.ready;
        await writeLines(subFile, sub.slice(cut));
        const expected = await exportSpans(scene.dirs.projects, settings);
        const got = await waitForIds(scene.receiver, expected);
        expect(differingRepeats(got)).toEqual([]);
        await scene.running.daemon.settled();
        const summary = await exportReadOnly(settings);
        expect(summary.turns).toBe(4);
        expect(summary.spansSent).toBe(0);
      });
    });

    describe('ccotel watch, files changing under it', () => {
      it('re-reads a truncated and a replaced transcript without sending a span twice with different content', async () => {
        const { settings, run, heavy, file } = await daemonAndHeavy();
        const turnEnd = indexOf(heavy, 'scrolling back in xterm.js');
        // Through the next prompt: the first turn is over, its root leaves at once.
        await writeLines(file, heavy.slice(0, turnEnd + 1));
        const firstTrace = traceOfPrompt(heavy, 'start phoenix in background');
        const firstTurn = [...(await exportSpans(scene.dirs.projects, settings)).values()].filter(
          (s) => s.traceId === firstTrace,
        );
        await waitForIds(
          scene.receiver,
          firstTurn.map((s) => s.spanId),
        );

        // Truncated in place to a shorter prefix, then written again from there.
        const inode = (await stat(file)).ino;
        await writeFile(file, `${heavy.slice(0, 11).join('\n')}\n`);
        expect((await stat(file)).ino).toBe(inode);
        await run.logs.waitFor((l) => l.msg.includes('re-reading') && l.reason === 'shrunk');
        await writeLines(file, heavy.slice(11));

        // Replaced by rename: the same history plus a new turn from another transcript.
        const sub = await fixtureLines(SUBAGENT);
        const extra = sub.slice(indexOf(sub, 'create the beads'));
        const tmp = `${file}.tmp`;
        await writeFile(tmp, `${[...heavy, ...extra].join('\n')}\n`);
        await rename(tmp, file);
        await run.logs.waitFor((l) => l.msg.includes('re-reading') && l.reason === 'replaced');

        const expected = await exportSpans(scene.dirs.projects, settings);
        const got = await waitForIds(scene.receiver, expected);
        expect(differingRepeats(got)).toEqual([]);
        for (const s of got) expect(expected.has(s.spanId), s.name).toBe(true);
      });

      it('forgets a deleted transcript', async () => {
        const { settings, run, heavy, file } = await daemonAndHeavy();
        await writeLines(file, heavy, 1);
        await waitForIds(scene.receiver, await exportSpans(scene.dirs.projects, settings));
        await unlink(file);
        await run.logs.waitFor((l) => l.msg.startsWith('session file deleted'));
        expect(await run.daemon.stop('test')).toBe(0);
        const saved = JSON.parse(
          await readFile(join(scene.dirs.state, 'watch-state.json'), 'utf8'),
        ) as {
          sessions: Record<string, unknown>;
        };
        expect(Object.keys(saved.sessions)).toEqual([]);
      });
    });

    describe('ccotel watch, delivery', () => {
      it('holds spans through a collector outage, logs it once, and delivers them all when it returns', async () => {
        const { settings, run, heavy, file } = await daemonAndHeavy();
        const first = indexOf(heavy, '"tool_result"');
        await writeLines(file, heavy.slice(0, first + 2));
        await waitForIds(scene.receiver, [toolSpanIdFor(resultIdAt(heavy, first))]);

        await scene.receiver.stop();
        await writeLines(file, heavy.slice(first + 2));
        await run.logs.waitFor((l) => l.msg.startsWith('collector unreachable'));
        // Let it retry a few times against the closed port (not an assertion, just a longer outage).
        await new Promise((r) => setTimeout(r, 1500));
        await scene.receiver.restart();

        const expected = await exportSpans(scene.dirs.projects, settings);
        const got = await waitForIds(scene.receiver, expected, 20_000);
        expect(differingRepeats(got)).toEqual([]);
        await run.logs.waitFor((l) => l.msg.startsWith('collector reachable again'));
        expect(
          run.logs.lines.filter((l) => l.msg.startsWith('collector unreachable')),
        ).toHaveLength(1);
        expect(
          run.logs.lines.filter((l) => l.msg.startsWith('collector reachable again')),
        ).toHaveLength(1);
      });

      it('sends open work marked incomplete after the idle timeout, and its final form when it completes', async () => {
        const { settings, run, heavy, file } = await daemonAndHeavy(400);
        const first = indexOf(heavy, '"tool_result"');
        const promptUuid =
          parse(heavy[indexOf(heavy, 'start phoenix in background')] ?? '').uuid ?? '';
        const rootId = turnSpanIdFor(promptUuid);
        const bashId = toolSpanIdFor(resultIdAt(heavy, first));
        await writeLines(file, heavy.slice(0, first));

        // Quiet for the idle timeout: the running Bash call and the open turn leave, incomplete.
        const early = await waitForIds(scene.receiver, [rootId, bashId]);
        expect(early.find((s) => s.spanId === rootId)?.attributes['claude_code.incomplete']).toBe(
          true,
        );
        expect(early.find((s) => s.spanId === bashId)?.attributes['claude_code.incomplete']).toBe(
          true,
        );
        await run.logs.waitFor((l) => l.msg.includes('unloaded'));

        // The session resumes: the call returns, the turn ends, final forms follow.
        await writeLines(file, heavy.slice(first));
        const expected = await exportSpans(scene.dirs.projects, settings);
        await waitForIds(scene.receiver, expected);
        await spansUntil(scene.receiver, (spans) => {
          const last = lastById(spans);
          return (
            last.get(rootId)?.attributes['claude_code.incomplete'] === undefined &&
            last.get(bashId)?.attributes['claude_code.incomplete'] === undefined
          );
        });
        const firstSeen = new Map<string, DecodedSpan>();
        for (const s of scene.receiver.spans())
          if (!firstSeen.has(s.spanId)) firstSeen.set(s.spanId, s);
        // The only spans sent twice with different content are those first sent incomplete.
        for (const id of differingRepeats(scene.receiver.spans()))
          expect(firstSeen.get(id)?.attributes['claude_code.incomplete'], id).toBe(true);
      });

      it('resumes after a restart mid-turn without sending anything twice', async () => {
        const { settings, run, heavy, file } = await daemonAndHeavy();
        const first = indexOf(heavy, '"tool_result"');
        await writeLines(file, heavy.slice(0, first + 3));
        await waitForIds(scene.receiver, [toolSpanIdFor(resultIdAt(heavy, first))]);
        expect(await run.daemon.stop('restart')).toBe(0);
        const saved = JSON.parse(
          await readFile(join(scene.dirs.state, 'watch-state.json'), 'utf8'),
        ) as {
          sessions: Record<string, { live: boolean }>;
        };
        expect(saved.sessions[file]?.live).toBe(true);
        expect((await stat(join(scene.dirs.state, 'watch-state.json'))).mode & 0o777).toBe(0o600);

        scene.running = await runDaemon(settings);
        await scene.running.daemon.ready;
        await writeLines(file, heavy.slice(first + 3));
        const expected = await exportSpans(scene.dirs.projects, settings);
        const got = await waitForIds(scene.receiver, expected);
        await scene.running.daemon.settled();
        expect([...countsById(got).entries()].filter(([, n]) => n > 1)).toEqual([]);
      });

      it('--once sends what is complete, leaves open turns for the next run, and exits 0', async () => {
        const settings = settingsFor(scene.receiver, scene.dirs, { idleTimeoutMs: QUIET_MS });
        const heavy = await fixtureLines(TOOL_HEAVY);
        const file = join(scene.dirs.project, `${sessionIdOf(heavy)}.jsonl`);
        const secondTurn = indexOf(heavy, 'scrolling back in xterm.js');
        await writeLines(file, heavy.slice(0, secondTurn + 4), 0);
        const onceRun = await runDaemon(settings, { once: true, backfill: true });
        expect(await onceRun.daemon.done).toBe(0);
        const openRoot = turnSpanIdFor(parse(heavy[secondTurn] ?? '').uuid ?? '');
        const firstTrace = traceOfPrompt(heavy, 'start phoenix in background');
        const firstTurn = [...(await exportSpans(scene.dirs.projects, settings)).values()].filter(
          (s) => s.traceId === firstTrace,
        );
        const afterFirst = scene.receiver.spans();
        for (const s of firstTurn) expect(afterFirst.map((x) => x.spanId)).toContain(s.spanId);
        expect(afterFirst.some((s) => s.spanId === openRoot)).toBe(false);

        await writeLines(file, heavy.slice(secondTurn + 4), 0);
        const again = await runDaemon(settings, { once: true });
        expect(await again.daemon.done).toBe(0);
        const expected = await exportSpans(scene.dirs.projects, settings);
        const got = scene.receiver.spans();
        for (const id of expected.keys()) expect(got.map((s) => s.spanId)).toContain(id);
        expect([...countsById(got).entries()].filter(([, n]) => n > 1)).toEqual([]);
        expect((await exportReadOnly(settings)).spansSent).toBe(0);
      });
    });

    function lastById(spans: DecodedSpan[]): Map<string, DecodedSpan> {
      const m = new Map<string, DecodedSpan>();
      for (const s of spans) m.set(s.spanId, s);
      return m;
    }

    /** Resolves once the received spans satisfy cond (checked on every delivery). */
    function spansUntil(
      rx: OtlpReceiver,
      cond: (spans: DecodedSpan[]) => boolean,
      timeoutMs = 15_000,
    ): Promise<void> {
      if (cond(rx.spans())) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error('spansUntil: condition not met in time'));
        }, timeoutMs);
        const off = rx.onSpans(() => {
          if (!cond(rx.spans())) return;
          clearTimeout(timer);
          off();
          resolve();
        });
      });
    }
  },
);
