// A 1.0.x inline sidechain whose root prompt matches no Task call: its calls are still shown,
// under the turn of its first line, and the read says so with the line.
import { describe, expect, it } from 'vitest';
import { finish } from '../../../../../src/core/model/assemble/finish.js';
import { NO_TABLE } from '../../../../../src/core/model/context-window.js';
import { parseRecord } from '../../../../../src/core/transcript/parse-record.js';
import { createSessionState, step } from '../../../../../src/core/session/state.js';
import { buildWaterfall } from '../../../../../src/core/view/waterfall.js';

const SID = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a';
const env = { sessionId: SID, cwd: '/w', version: '1.0.98', userType: 'external' };
const t = (s: string): string => `2025-09-03T10:00:${s}Z`;
const usage = {
  input_tokens: 3,
  cache_read_input_tokens: 9000,
  cache_creation_input_tokens: 0,
  output_tokens: 12,
};
const lines = [
  {
    ...env,
    type: 'user',
    isSidechain: false,
    uuid: 'm1',
    parentUuid: null,
    timestamp: t('00.000'),
    message: { role: 'user', content: 'Tidy the repo' },
  },
  {
    ...env,
    type: 'assistant',
    isSidechain: false,
    uuid: 'm2',
    parentUuid: 'm1',
    timestamp: t('02.000'),
    message: {
      id: 'msg_m2',
      model: 'claude-sonnet-4-20250514',
      role: 'assistant',
      content: [{ type: 'text', text: 'On it.' }],
      usage,
    },
  },
  {
    ...env,
    type: 'user',
    isSidechain: true,
    uuid: 's1',
    parentUuid: null,
    timestamp: t('03.000'),
    message: { role: 'user', content: 'A prompt no Task call carries' },
  },
  {
    ...env,
    type: 'assistant',
    isSidechain: true,
    uuid: 's2',
    parentUuid: 's1',
    timestamp: t('04.000'),
    message: {
      id: 'msg_s2',
      model: 'claude-sonnet-4-20250514',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_side', name: 'Bash', input: { command: 'ls' } }],
      usage,
    },
  },
  {
    ...env,
    type: 'user',
    isSidechain: true,
    uuid: 's3',
    parentUuid: 's2',
    timestamp: t('04.500'),
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_side', content: 'a b' }],
    },
  },
].map((l) => JSON.stringify(l));

describe('an inline sidechain no Task call spawned', () => {
  it('is a row of its own holding its calls, with a warning naming its first line', () => {
    const state = createSessionState(SID, `${SID}.jsonl`);
    lines.forEach((l, i) =>
      step(state, { file: `${SID}.jsonl`, agentId: null }, i + 1, parseRecord(l)),
    );
    const model = finish(state, NO_TABLE);
    const rows = buildWaterfall(model);
    expect(rows.map((r) => [r.id, r.type, r.children.map((c) => c.id)])).toEqual([
      ['sidechain:s1', 'agent', ['toolu_side']],
    ]);
    expect(model.warnings).toEqual([
      {
        file: `${SID}.jsonl`,
        line: 3,
        reason:
          'inline sidechain matches no Task call by its prompt: shown under the turn of its first line',
      },
    ]);
    expect(model.turns).toHaveLength(1);
    expect(model.agents.get('sidechain:s1')?.turnIndex).toBe(0);
  });
});
