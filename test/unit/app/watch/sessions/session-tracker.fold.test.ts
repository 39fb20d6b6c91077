// The daemon folds finished turns away (core/session-fold.ts) so that a long
// live session costs per appended line, not per session size. Folding must
// not change a span: every real main-file fixture is written line by line,
// each line read and rebuilt on its own, and the last version of every span
// the tracker sent is compared with what `ccotel export` builds from the
// final file.
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../../../../src/core/cost/pricing.js';
import type { SpanData, SpanOptions } from '../../../../../src/core/spans/data.js';
import { loadPriceTable } from '../../../../../src/adapters/config/price-file.js';
import { silentLogger } from '../../../../../src/adapters/logger.js';
import { sessionSpans } from '../../../../support/whole-session.js';
import { SessionTracker } from '../../../../../src/app/watch/sessions/session-tracker.js';
import { spanOuts } from '../../../../support/outgoing.js';
import { writeLongSession } from '../../../../../bench/lib/long-session.mjs';

const REAL = join(import.meta.dirname, '..', '..', '..', '..', '..', 'fixtures', 'real');
const OPTIONS: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };

let prices: PriceTable;
let dir: string;
beforeAll(async () => {
  prices = await loadPriceTable();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-fold-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function newTracker(
  file: string,
  start: { skip: number; baseline: number | null } = { skip: 0, baseline: null },
  historyFoldRecords?: number,
): SessionTracker {
  return new SessionTracker(
    file,
    'sess',
    {
      prices,
      spanOptions: OPTIONS,
      parse: {},
      records: {
        get: () => undefined,
        record: () => undefined,
        dirty: false,
        save: async () => {},
      },
      log: silentLogger,
      ...(historyFoldRecords === undefined ? {} : { historyFoldRecords }),
    },
    { files: {}, ...start, live: true, turns: {} },
  );
}

interface LiveRun {
  sent: Map<string, SpanData>;
  tracker: SessionTracker;
  /** The most entries the tracker held at once. */
  peakHeld: number;
}

/** Writes a transcript one line at a time, the tracker reading and rebuilding after each. */
async function writeLive(lines: string[], file: string): Promise<LiveRun> {
  await writeFile(file, '');
  const tracker = newTracker(file);
  await tracker.load();
  const sent = new Map<string, SpanData>();
  let peakHeld = 0;
  const drain = (): void => {
    const out = tracker.take(10_000);
    for (const o of spanOuts(out)) sent.set(o.span.spanId, o.span);
    tracker.ack(out);
  };
  for (const line of lines) {
    await appendFile(file, `${line}\n`);
    await tracker.ingest(file);
    await tracker.catchUp();
    tracker.recompute();
    drain();
    peakHeld = Math.max(peakHeld, tracker.heldEntries);
  }
  tracker.setFlush('final');
  tracker.recompute();
  drain();
  return { sent, tracker, peakHeld };
}

async function mainFiles(): Promise<string[]> {
  const names = (await readdir(REAL)).filter(
    (n) => n.endsWith('.jsonl') && !n.includes('__subagents__'),
  );
  return names.sort();
}

/** The lines of a generated session of `turns` turns of 4 calls, no sub-agents (their files would be written apart). */
async function longSessionLines(name: string, turns: number): Promise<string[]> {
  const source = writeLongSession({
    dir: join(dir, name),
    turns,
    callsPerTurn: 4,
    agentEvery: 1000,
  });
  return (await readFile(source.file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
}

describe('folding finished turns in the live tracker', () => {
  it('leaves every span of every real main file as export makes it', async () => {
    let folded = 0;
    for (const name of await mainFiles()) {
      const lines = (await readFile(join(REAL, name), 'utf8'))
        .split('\n')
        .filter((l) => l.trim() !== '');
      const file = join(dir, `${name}`);
      const { sent, tracker } = await writeLive(lines, file);
      folded += tracker.foldedTurns;
      const exported = await sessionSpans(
        { sessionId: 'sess', projectDir: dir, mainFile: file, agentFiles: [], metaFiles: [] },
        prices,
        OPTIONS,
      );
      const expected = exported.turns.flatMap((t) => t.spans);
      expect([...sent.keys()].sort(), name).toEqual(expected.map((s) => s.spanId).sort());
      for (const span of expected) expect(sent.get(span.spanId), name).toEqual(span);
    }
    // The real sessions here are short (1-3 turns), but a dozen of them fold.
    expect(folded).toBeGreaterThan(5);
  });

  it('holds only the open turn of a long session, and still sends what export makes', async () => {
    // 60 turns of 4 calls, no sub-agents (their files would be written apart).
    const lines = await longSessionLines('source', 60);
    const file = join(dir, 'long.jsonl');
    const { sent, tracker, peakHeld } = await writeLive(lines, file);
    expect(tracker.foldedTurns).toBe(59);
    // No turn holds more than its own lines (a prompt, 4 calls, an answer, its end).
    expect(peakHeld).toBeLessThan(20);
    const exported = await sessionSpans(
      { sessionId: 'sess', projectDir: dir, mainFile: file, agentFiles: [], metaFiles: [] },
      prices,
      OPTIONS,
    );
    const expected = exported.turns.flatMap((t) => t.spans);
    expect(sent.size).toBe(expected.length);
    for (const span of expected) expect(sent.get(span.spanId)).toEqual(span);
  });

  it('folds history while it reads it at start-up, and sends the new turns as export makes them', async () => {
    const lines = await longSessionLines('hist', 45);
    const prompts = lines.flatMap((l, i) =>
      /"type":"user"/.test(l) && !l.includes('tool_result') ? [i] : [],
    );
    const cut = prompts[40] ?? 0;
    const file = join(dir, 'hist.jsonl');
    const history = `${lines.slice(0, cut).join('\n')}\n`;
    const exported = async () =>
      (
        await sessionSpans(
          { sessionId: 'sess', projectDir: dir, mainFile: file, agentFiles: [], metaFiles: [] },
          prices,
          OPTIONS,
        )
      ).turns;
    for (const start of [
      { skip: 0, baseline: Buffer.byteLength(history) }, // first start: history up to here
      { skip: 40, baseline: null }, // restart: 40 turns delivered before
    ]) {
      await writeFile(file, history);
      const tracker = newTracker(file, start, 20);
      await tracker.load();
      // Read in folds of ~20 records: far from the 400 lines of history held whole.
      expect(tracker.heldEntries).toBeLessThan(60);
      expect(tracker.foldedTurns).toBeGreaterThan(30);
      const sent = new Map<string, SpanData>();
      for (const line of lines.slice(cut)) {
        await appendFile(file, `${line}\n`);
        await tracker.ingest(file);
        tracker.recompute();
        const out = tracker.take(10_000);
        for (const o of spanOuts(out)) sent.set(o.span.spanId, o.span);
        tracker.ack(out);
      }
      tracker.setFlush('final');
      tracker.recompute();
      for (const o of spanOuts(tracker.take(10_000))) sent.set(o.span.spanId, o.span);
      const expected = (await exported()).slice(40).flatMap((t) => t.spans);
      expect(sent.size).toBe(expected.length);
      for (const span of expected) expect(sent.get(span.spanId)).toEqual(span);
    }
  });
});
