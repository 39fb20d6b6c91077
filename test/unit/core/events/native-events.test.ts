// Claude Code's events (--schema claude-code) on every fixture session: each
// record's body and keys are the Monitoring page's for that event
// (code.claude.com/docs/en/monitoring-usage, "Events", 2026-08-22 snapshot;
// docs/native-telemetry.md), less what a transcript cannot know.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import type { PriceTable } from '../../../../src/core/cost/pricing.js';
import { costSession } from '../../../../src/core/cost/session-cost.js';
import type { LogRecordData } from '../../../../src/core/events/log-record.js';
import { buildTurnEvents, SEQUENCE_PER_TURN } from '../../../../src/core/events/native-events.js';
import type { SessionModel } from '../../../../src/core/model/session-model.js';
import type { SpanOptions } from '../../../../src/core/spans/data.js';
import { sessionSpans } from '../../../support/whole-session.js';
import { fixtureSessions } from '../../../support/fixture-sessions.js';

const OPTIONS: SpanOptions = { content: 'labels', maxAttributeBytes: 2048, schema: 'claude-code' };

/**
 * "All standard attributes" (session.id among them), and on every event
 * event.name, event.timestamp, event.sequence and prompt.id ("Events
 * additionally include"); log.record.uid is OpenTelemetry's, for deduplication.
 */
const COMMON = [
  'session.id',
  'event.name',
  'event.timestamp',
  'event.sequence',
  'prompt.id',
  'log.record.uid',
];

/** Each event's own attributes, as its section lists them. */
const DOCUMENTED: Record<string, string[]> = {
  // "User prompt event".
  'claude_code.user_prompt': ['prompt_length', 'prompt', 'message.uuid'],
  // "API request event".
  'claude_code.api_request': [
    'model',
    'cost_usd',
    'cost_usd_micros',
    'duration_ms',
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_creation_tokens',
    'request_id',
    'speed',
    'query_source',
  ],
  // "API error event".
  'claude_code.api_error': ['model', 'error', 'duration_ms', 'request_id', 'speed', 'query_source'],
  // "Tool result event".
  'claude_code.tool_result': [
    'tool_name',
    'tool_use_id',
    'success',
    'duration_ms',
    'decision_type',
  ],
  // "Tool decision event".
  'claude_code.tool_decision': ['tool_name', 'tool_use_id', 'decision', 'source'],
};

let prices: PriceTable;
const all: { model: SessionModel; turnIndex: number; events: LogRecordData[] }[] = [];

beforeAll(async () => {
  prices = await loadPriceTable();
  for (const files of await fixtureSessions()) {
    const { model } = await sessionSpans(files, prices, OPTIONS);
    const costs = costSession(model, prices);
    for (const turn of model.turns)
      all.push({
        model,
        turnIndex: turn.index,
        events: buildTurnEvents(model, turn.index, costs, OPTIONS),
      });
  }
});

describe('claude-code events on every fixture', () => {
  it('has each kind somewhere', () => {
    const kinds = new Set(all.flatMap((t) => t.events.map((e) => e.body)));
    expect([...kinds].sort()).toEqual(Object.keys(DOCUMENTED).sort());
  });

  it('names the body claude_code.<event.name>, with only documented keys', () => {
    for (const { events } of all)
      for (const e of events) {
        expect(e.body).toBe(`claude_code.${String(e.attributes['event.name'])}`);
        // "Events additionally include … workflow.run_id, workflow.name" (a workflow's agents).
        const allowed = [
          ...COMMON,
          'workflow.run_id',
          'workflow.name',
          ...(DOCUMENTED[e.body] ?? []),
        ];
        for (const key of Object.keys(e.attributes))
          expect(allowed, `${e.body} ${key}`).toContain(key);
        for (const key of COMMON) expect(e.attributes, e.body).toHaveProperty(key);
      }
  });

  it('writes success as the strings "true" and "false"', () => {
    for (const { events } of all)
      for (const e of events.filter((x) => x.body === 'claude_code.tool_result'))
        expect(['true', 'false']).toContain(e.attributes.success);
  });

  it('orders events by sequence through the session, the prompt first in its turn', () => {
    for (const { turnIndex, events } of all) {
      const seq = events.map((e) => e.attributes['event.sequence'] as number);
      expect(seq).toEqual(seq.map((_, i) => turnIndex * SEQUENCE_PER_TURN + i + 1));
      const prompt = events.findIndex((e) => e.body === 'claude_code.user_prompt');
      expect(prompt === -1 || prompt === 0).toBe(true);
      for (let i = 2; i < events.length; i++)
        expect((events[i] as LogRecordData).timeMs).toBeGreaterThanOrEqual(
          (events[i - 1] as LogRecordData).timeMs,
        );
    }
  });

  it('gives each event one uid, the same on a second build', () => {
    // A turn copied into another file (a fork, a resumed session, a second layout of a sample)
    // is the same turn, with the same uids, as its trace id is: counted once.
    const turns = new Map(all.map((t) => [t.model.turns[t.turnIndex]?.promptUuid, t.events]));
    const uids = [...turns.values()].flatMap((events) =>
      events.map((e) => e.attributes['log.record.uid']),
    );
    expect(new Set(uids).size).toBe(uids.length);
    const { model, turnIndex, events } = all.find((t) => t.events.length > 2) as (typeof all)[0];
    expect(buildTurnEvents(model, turnIndex, costSession(model, prices), OPTIONS)).toEqual(events);
  });

  it('redacts the prompt unless content is full, and scrubs it when it is', () => {
    for (const { events } of all)
      for (const e of events.filter((x) => x.body === 'claude_code.user_prompt'))
        expect(e.attributes.prompt).toBe('<REDACTED>');
    const { model, turnIndex } = all.find((t) =>
      t.events.some((e) => e.body === 'claude_code.user_prompt'),
    ) as (typeof all)[0];
    const full = buildTurnEvents(model, turnIndex, costSession(model, prices), {
      ...OPTIONS,
      content: 'full',
    });
    expect(full[0]?.attributes.prompt).not.toBe('<REDACTED>');
    expect(full[0]?.attributes.prompt).toBe(model.turns[turnIndex]?.promptText);
  });
});
