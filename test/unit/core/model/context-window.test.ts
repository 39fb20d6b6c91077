// Context windows: the model table's window where it has one, else the observed rule for the
// whole session (a main-thread response over 200k proves 1M, for earlier turns too).
import { describe, expect, it } from 'vitest';
import { finish } from '../../../../src/core/model/assemble/finish.js';
import { NO_TABLE, turnsWithChangedWindow } from '../../../../src/core/model/context-window.js';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import {
  validatePriceTable,
  windowsOf,
  type PriceTable,
} from '../../../../src/core/cost/pricing.js';
import { createSessionState, step } from '../../../../src/core/session/state.js';
import type { SessionModel } from '../../../../src/core/model/session-model.js';
import prices from '../../../../config/pricing.json' with { type: 'json' };

const table = validatePriceTable(prices) as PriceTable;
const SID = '6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';

/** One turn: a prompt and one response of `model` whose context is `context` tokens. */
function turnLines(n: number, model: string, context: number): string[] {
  const t = (s: number): string => `2026-11-20T10:0${n}:0${s}.000Z`;
  const env = {
    sessionId: SID,
    cwd: '/w',
    version: '2.1.230',
    isSidechain: false,
    userType: 'external',
  };
  return [
    JSON.stringify({
      ...env,
      type: 'user',
      uuid: `p-${n}`,
      parentUuid: null,
      timestamp: t(0),
      message: { role: 'user', content: `question ${n}` },
    }),
    JSON.stringify({
      ...env,
      type: 'assistant',
      uuid: `a-${n}`,
      parentUuid: `p-${n}`,
      timestamp: t(2),
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        model,
        role: 'assistant',
        stop_reason: 'end_turn',
        content: [{ type: 'text', text: 'answer' }],
        usage: {
          input_tokens: 2,
          cache_read_input_tokens: context - 2,
          cache_creation_input_tokens: 0,
          output_tokens: 10,
        },
      },
    }),
  ];
}

function modelOf(lines: string[], withTable: boolean): SessionModel {
  const state = createSessionState(SID, `${SID}.jsonl`);
  lines.forEach((l, i) =>
    step(state, { file: `${SID}.jsonl`, agentId: null }, i + 1, parseRecord(l)),
  );
  return finish(state, withTable ? windowsOf(table) : NO_TABLE);
}

describe('context windows', () => {
  it('an unknown model: a later response over 200k gives every turn of the session 1M', () => {
    const lines = [
      ...turnLines(0, 'some-new-model', 150_000),
      ...turnLines(1, 'some-new-model', 250_000),
    ];
    const m = modelOf(lines, true);
    expect(m.turns.map((t) => t.contextWindow)).toEqual([1_000_000, 1_000_000]);
    expect(m.contextWindow).toBe(1_000_000);
  });

  it('an unknown model never over 200k stays at 200k', () => {
    const m = modelOf([...turnLines(0, 'some-new-model', 150_000)], true);
    expect(m.turns[0]?.contextWindow).toBe(200_000);
  });

  it('a model in the table has its window at once: claude-opus-5 at 190k fills 19 %, not 95 %', () => {
    const m = modelOf([...turnLines(0, 'claude-opus-5', 190_000)], true);
    expect(m.turns[0]?.contextWindow).toBe(1_000_000);
    const without = modelOf([...turnLines(0, 'claude-opus-5', 190_000)], false);
    expect(without.turns[0]?.contextWindow).toBe(200_000);
  });

  it('a 200K model keeps 200k although another turn of the session proved 1M', () => {
    const lines = [
      ...turnLines(0, 'claude-haiku-4-5-20251001', 150_000),
      ...turnLines(1, 'some-new-model', 250_000),
    ];
    expect(modelOf(lines, true).turns.map((t) => t.contextWindow)).toEqual([200_000, 1_000_000]);
  });

  it('names the turns already read whose window a later response changed (what a live reader warns of)', () => {
    const first = modelOf([...turnLines(0, 'some-new-model', 150_000)], true);
    const later = modelOf(
      [...turnLines(0, 'some-new-model', 150_000), ...turnLines(1, 'some-new-model', 250_000)],
      true,
    );
    expect(turnsWithChangedWindow(first.turns, later.turns)).toEqual([
      { index: 0, from: 200_000, to: 1_000_000 },
    ]);
    expect(turnsWithChangedWindow(later.turns, later.turns)).toEqual([]);
  });
});
