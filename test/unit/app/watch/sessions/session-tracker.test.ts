// The tracker fed by hand, line by line: which spans may leave when
// (core/finality.ts), and the send-once-per-content rule.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../../../../src/core/cost/pricing.js';
import { chatSpanIdFor, toolSpanIdFor } from '../../../../../src/core/spans/ids.js';
import { loadPriceTable } from '../../../../../src/adapters/config/price-file.js';
import { silentLogger, type LogFields, type Logger } from '../../../../../src/adapters/logger.js';
import type { ExportRecords } from '../../../../../src/app/watch/state/export-records.js';
import { SessionTracker } from '../../../../../src/app/watch/sessions/session-tracker.js';
import { spanOuts, type SpanOut } from '../../../../support/outgoing.js';

const HAND = join(import.meta.dirname, '..', '..', '..', '..', '..', 'fixtures', 'hand');

let prices: PriceTable;
let dir: string;
let recorded: Map<string, string>;

beforeAll(async () => {
  prices = await loadPriceTable();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-tracker-'));
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

async function tracker(log: Logger = silentLogger): Promise<{ t: SessionTracker; file: string }> {
  const file = join(dir, 'sess.jsonl');
  await writeFile(file, '');
  const t = new SessionTracker(
    file,
    'sess',
    {
      prices,
      spanOptions: { content: 'labels', maxAttributeBytes: 2048 },
      parse: {},
      records: records(),
      log,
    },
    { files: {}, skip: 0, baseline: null, live: true, turns: {} },
  );
  await t.load();
  return { t, file };
}

/** Appends lines, lets the tracker read them, and returns what it would send now (acknowledged at once). */
async function feed(t: SessionTracker, file: string, lines: string[]): Promise<SpanOut[]> {
  if (lines.length > 0) await appendFile(file, `${lines.join('\n')}\n`);
  await t.ingest(file);
  await t.catchUp();
  t.recompute();
  const out = t.take(512);
  t.ack(out);
  return spanOuts(out);
}

const names = (out: SpanOut[]): string[] => out.map((o) => o.span.name);
const idOfResult = (line: string): string => /"tool_use_id":"([^"]+)"/.exec(line)?.[1] ?? '';
const msgIdOf = (line: string): string => {
  const rec = JSON.parse(line) as { requestId?: string; message: { id: string } };
  return rec.requestId === undefined ? rec.message.id : `${rec.message.id}:${rec.requestId}`;
};

describe('session tracker', () => {
  it('warns once when a later response proves a 1M window for spans already sent', async () => {
    // claude-opus-4-6 has no window in the table, so the observed rule decides. Its
    // responses read 195k, 236k, 239k; the second is lowered to 150k here so that the
    // first response's spans leave (the second began) before the third proves 1M.
    const lines = (await fixture('context-1m')).map((l, i) =>
      i === 4
        ? l.replace('"cache_read_input_tokens":235720', '"cache_read_input_tokens":150000')
        : l,
    );
    const warned: { msg: string; fields: LogFields | undefined }[] = [];
    const log: Logger = { ...silentLogger, warn: (msg, fields) => warned.push({ msg, fields }) };
    const { t, file } = await tracker(log);
    const fill = (o: SpanOut | undefined): unknown =>
      o?.span.attributes['claude_code.context.fill_percent'];
    const before = await feed(t, file, lines.slice(0, 6));
    const tool = before.find((o) => o.span.name.startsWith('execute_tool'));
    expect(fill(tool)).toBeGreaterThan(95);
    expect(warned).toEqual([]);
    const after = await feed(t, file, lines.slice(6));
    expect(warned).toEqual([
      {
        msg: 'context window changed after spans were sent; they are sent again',
        fields: { session: 'sess', turns: 1, from: 200_000, to: 1_000_000 },
      },
    ]);
    // The tool span already sent leaves again, same id, its fill measured against 1M.
    const again = after.find((o) => o.span.spanId === tool?.span.spanId);
    expect(fill(again)).toBeLessThan(20);
  });

  it('sends a tool span once its result landed and its response wrote its last line, with the final usage', async () => {
    const lines = await fixture('parallel-tools-streaming');
    const { t, file } = await tracker();
    // prompt, text block, first Read block, its result: the response is still streaming.
    expect(await feed(t, file, lines.slice(0, 5))).toEqual([]);
    // more blocks and results of the same response: still streaming, nothing final.
    expect(await feed(t, file, lines.slice(5, 9))).toEqual([]);
    // the next response begins: the first one is over, with its calls.
    const next = await feed(t, file, lines.slice(9));
    expect(names(next).sort()).toEqual([
      'chat claude-opus-4-6',
      'execute_tool Grep',
      'execute_tool Read',
      'execute_tool Read',
    ]);
    expect(next.find((o) => o.span.name === 'chat claude-opus-4-6')?.span.spanId).toBe(
      chatSpanIdFor(msgIdOf(lines[2] ?? '')),
    );
    // The response's final output count (233), not the placeholder on each tool_use line (6).
    for (const o of next.filter((n) => n.span.name.startsWith('execute_tool')))
      expect(o.span.attributes['claude_code.tokens.output']).toBe(233);
    expect(next.some((o) => o.span.spanId === toolSpanIdFor(idOfResult(lines[4] ?? '')))).toBe(
      true,
    );
  });

  it('sends the root once the turn is provably over (turn_duration), then records the turn', async () => {
    const lines = await fixture('turn-end-markers');
    const { t, file } = await tracker();
    // Through stop_hook_summary: the answer is done, the turn may still go on.
    const first = await feed(t, file, lines.slice(0, 8));
    expect(names(first)).not.toContain('invoke_agent Claude Code');
    expect(names(first)).toContain('execute_tool Bash');
    const ended = await feed(t, file, lines.slice(8, 9));
    expect(names(ended)).toEqual(['invoke_agent Claude Code']);
    expect(recorded.size).toBe(1);
    expect(t.unfinished).toBe(false);
  });

  it('without an end record, the root waits for the next prompt', async () => {
    const lines = (await fixture('turn-end-markers')).filter(
      (l) => !l.includes('"turn_duration"') && !l.includes('"stop_hook_summary"'),
    );
    const { t, file } = await tracker();
    const prompt = lines.findIndex((l, i) => i > 1 && l.includes('And how many are published'));
    expect(names(await feed(t, file, lines.slice(0, prompt)))).not.toContain(
      'invoke_agent Claude Code',
    );
    const next = await feed(t, file, lines.slice(prompt, prompt + 1));
    expect(next.filter((o) => o.span.name === 'invoke_agent Claude Code')).toHaveLength(1);
    expect(next.find((o) => o.span.parentSpanId === null)?.span.attributes).toMatchObject({
      'claude_code.turn.index': 0,
      'claude_code.turn.end_state': 'completed',
    });
  });

  it('holds a turn with a background agent until its task-notification, past a first turn_duration', async () => {
    const lines = await fixture('async-agent');
    const sub = join(HAND, 'async-agent', '48399214-22ef-419f-ad7a-1208900fce69', 'subagents');
    const agentLines = (await readFile(join(sub, 'agent-a6d2f0b9c4e17a385.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '');
    const { t, file } = await tracker();
    const agentFile = join(dir, 'subagents', 'agent-a6d2f0b9c4e17a385.jsonl');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'subagents')));
    await writeFile(agentFile, `${agentLines.join('\n')}\n`);
    t.addFile(agentFile);
    await t.ingest(agentFile);
    const firstEnd = lines.findIndex((l) => l.includes('"turn_duration"'));
    // The agent has answered and the main thread wrote turn_duration: not yet over.
    const early = await feed(t, file, lines.slice(0, firstEnd + 1));
    expect(names(early)).not.toContain('invoke_agent Claude Code');
    expect(names(early)).not.toContain('execute_tool Agent');
    // The notification continues the turn; its last turn_duration ends it.
    const rest = await feed(t, file, lines.slice(firstEnd + 1));
    expect(names(rest)).toContain('invoke_agent Claude Code');
    expect(names(rest)).toContain('execute_tool Agent');
    expect(recorded.size).toBe(1);
  });

  it('sends open work as incomplete on an idle flush, and again (same ids) what changed when it completes', async () => {
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
    // The result alone: the response that issued the call may still be streaming.
    const waiting = await feed(t, file, [result]);
    expect(t.flushMode).toBe('normal');
    expect(waiting.some((o) => o.span.spanId === bash?.span.spanId)).toBe(false);
    const answer = JSON.stringify({
      parentUuid: 'u-result',
      isSidechain: false,
      type: 'assistant',
      sessionId: 'sess',
      uuid: 'a-answer',
      timestamp: '2026-02-26T14:12:03.000Z',
      message: {
        id: 'msg_answer',
        model: 'claude-opus-4-6',
        role: 'assistant',
        content: [{ type: 'text', text: 'All green.' }],
        usage: { input_tokens: 5, output_tokens: 9 },
      },
    });
    const resumed = await feed(t, file, [answer]);
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
        records: records(),
        log: silentLogger,
      },
      { files: {}, skip: 0, baseline: Buffer.byteLength(history), live: false, turns: {} },
    );
    await t.load();
    t.setFlush('final');
    t.recompute();
    const out = spanOuts(t.take(512));
    expect(new Set(out.map((o) => o.span.traceId)).size).toBe(1);
    expect(out.some((o) => o.span.attributes['claude_code.turn.index'] === 1)).toBe(true);
    expect(t.toRecord(false)).toMatchObject({ skip: 1, baseline: null });
  });
});
