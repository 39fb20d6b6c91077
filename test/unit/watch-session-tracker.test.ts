// The tracker fed by hand, line by line, with a fake clock: which spans may
// leave when, and the send-once rule.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/core/pricing.js';
import { chatSpanIdFor, toolSpanIdFor } from '../../src/core/span-ids.js';
import { loadPriceTable } from '../../src/adapters/price-file.js';
import { silentLogger } from '../../src/adapters/logger.js';
import type { ExportRecords } from '../../src/app/watch/export-records.js';
import { SessionTracker, type Outgoing } from '../../src/app/watch/session-tracker.js';

const HAND = join(import.meta.dirname, '..', '..', 'fixtures', 'hand');

let prices: PriceTable;
let dir: string;
let clock = 0;
let recorded: Map<string, string>;

beforeAll(async () => {
  prices = await loadPriceTable();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-tracker-'));
  clock = 0;
  recorded = new Map();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function records(): ExportRecords {
  return {
    get: (t) => recorded.get(t),
    record: (t, d) => void recorded.set(t, d),
    dirty: false,
    save: () => Promise.resolve(),
  };
}

async function fixture(name: string): Promise<string[]> {
  const [file] = (
    await import('node:fs/promises').then((fs) => fs.readdir(join(HAND, name)))
  ).filter((f) => f.endsWith('.jsonl'));
  return (await readFile(join(HAND, name, file ?? ''), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '');
}

async function tracker(settleMs = 100): Promise<{ t: SessionTracker; file: string }> {
  const file = join(dir, 'sess.jsonl');
  await writeFile(file, '');
  const t = new SessionTracker(
    file,
    'sess',
    {
      prices,
      spanOptions: { content: 'labels', maxAttributeBytes: 2048 },
      parse: {},
      settleMs,
      records: records(),
      log: silentLogger,
      now: () => clock,
    },
    { files: {}, skip: 0, baseline: null, live: true, turns: {} },
  );
  await t.load();
  return { t, file };
}

/** Appends lines, lets the tracker read them, and returns what it would send now (acknowledged at once). */
async function feed(t: SessionTracker, file: string, lines: string[]): Promise<Outgoing[]> {
  if (lines.length > 0) await appendFile(file, `${lines.join('\n')}\n`);
  await t.ingest(file);
  await t.catchUp();
  t.recompute();
  const out = t.take(512);
  t.ack(out);
  return out;
}

const names = (out: Outgoing[]): string[] => out.map((o) => o.span.name);
const idOfResult = (line: string): string => /"tool_use_id":"([^"]+)"/.exec(line)?.[1] ?? '';
const msgIdOf = (line: string): string => {
  const rec = JSON.parse(line) as { requestId?: string; message: { id: string } };
  return rec.requestId === undefined ? rec.message.id : `${rec.message.id}:${rec.requestId}`;
};

describe('session tracker', () => {
  it('sends a tool span on its result, but a streamed response only once its thread moves on', async () => {
    const lines = await fixture('parallel-tools-streaming');
    const { t, file } = await tracker();
    // prompt, text block, first Read block, its result: the response is still streaming.
    const early = await feed(t, file, lines.slice(0, 5));
    expect(early.map((o) => o.span.spanId)).toEqual([toolSpanIdFor(idOfResult(lines[4] ?? ''))]);
    // more blocks and results of the same response: tool spans only.
    const mid = await feed(t, file, lines.slice(5, 9));
    expect(names(mid)).toEqual(['execute_tool Read', 'execute_tool Grep']);
    // the next response begins: the first one is over.
    const next = await feed(t, file, lines.slice(9));
    expect(next.map((o) => o.span.spanId)).toEqual([chatSpanIdFor(msgIdOf(lines[2] ?? ''))]);
  });

  it('sends the root once the closed turn has settled, then records the turn', async () => {
    const lines = await fixture('turn-end-markers');
    const { t, file } = await tracker(100);
    const first = await feed(t, file, lines.slice(0, 9));
    expect(names(first)).not.toContain('invoke_agent Claude Code');
    expect(t.nextWake).toBe(100);
    clock = 150;
    const settled = await feed(t, file, []);
    expect(names(settled)).toContain('invoke_agent Claude Code');
    expect(recorded.size).toBe(1);
    expect(t.unfinished).toBe(false);
  });

  it('sends open work as incomplete on an idle flush, and once more when it completes; never a changed complete span', async () => {
    const lines = await fixture('running-tool');
    const { t, file } = await tracker();
    await feed(t, file, lines);
    t.setFlush('idle');
    const flushed = await feed(t, file, []);
    const bash = flushed.find((o) => o.span.name === 'execute_tool Bash');
    expect(bash?.span.complete).toBe(false);
    expect(
      flushed.find((o) => o.span.name === 'invoke_agent Claude Code')?.span.attributes[
        'claude_code.incomplete'
      ],
    ).toBe(true);
    // Everything delivered matches what export would build now: recorded.
    expect(recorded.size).toBe(1);

    const result = JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      sessionId: 'sess',
      uuid: 'u-result',
      timestamp: '2026-02-26T14:12:00.000Z',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: /"id":"(toolu_[^"]+)"/.exec(lines[lines.length - 1] ?? '')?.[1],
            content: 'ok',
          },
        ],
      },
    });
    const resumed = await feed(t, file, [result]);
    expect(t.flushMode).toBe('normal');
    expect(resumed.find((o) => o.span.spanId === bash?.span.spanId)?.span.complete).toBe(true);
    // The Read call was sent complete before; its content did not change, so it is not resent.
    expect(names(resumed)).not.toContain('execute_tool Read');
  });

  it('skips turns that had ended before the first start (baseline)', async () => {
    const lines = await fixture('turn-end-markers');
    const file = join(dir, 'sess.jsonl');
    const history = `${lines.slice(0, 9).join('\n')}\n`;
    await writeFile(file, history + `${lines.slice(9).join('\n')}\n`);
    const t = new SessionTracker(
      file,
      'sess',
      {
        prices,
        spanOptions: { content: 'labels', maxAttributeBytes: 2048 },
        parse: {},
        settleMs: 0,
        records: records(),
        log: silentLogger,
        now: () => clock,
      },
      { files: {}, skip: 0, baseline: Buffer.byteLength(history), live: false, turns: {} },
    );
    await t.load();
    t.setFlush('final');
    t.recompute();
    const out = t.take(512);
    expect(new Set(out.map((o) => o.span.traceId)).size).toBe(1);
    expect(out.some((o) => o.span.attributes['claude_code.turn.index'] === 1)).toBe(true);
    expect(t.toRecord(false)).toMatchObject({ skip: 1, baseline: null });
  });
});
