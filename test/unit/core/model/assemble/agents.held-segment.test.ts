// A segment links the agents its own entries tie it to, not every agent the
// session has registered: one whose spawning call is in another segment is
// left out of this one's model, and a sub-agent with a file and a meta but no
// records still gets its row, in the turn of the call that spawned it.
import { describe, expect, it } from 'vitest';
import { finishSegment, wholeSession } from '../../../../../src/core/model/assemble/finish.js';
import {
  commitCut,
  createSessionReader,
  cutBefore,
} from '../../../../../src/core/session/reader.js';
import { parseRecord } from '../../../../../src/core/transcript/parse-record.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type AgentMeta,
} from '../../../../../src/core/session/state.js';
import { buildWaterfall } from '../../../../../src/core/view/waterfall.js';

const SID = '2e3d4c5b-6a7f-4e8d-9cab-1f2e3d4c5b6a';
const FILE = `${SID}.jsonl`;
const env = { sessionId: SID, cwd: '/w', version: '2.1.100', userType: 'external' };
const usage = { input_tokens: 3, cache_read_input_tokens: 900, output_tokens: 12 };
const at = (s: number): string => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();

/** A turn whose one call spawns agent `agentId` (its result names it), then ends. */
function turn(n: number, agentId: string, t: number): object[] {
  const id = `toolu_${n}`;
  return [
    {
      ...env,
      type: 'user',
      uuid: `p${n}`,
      parentUuid: null,
      timestamp: at(t),
      message: { role: 'user', content: `Look into part ${n}` },
    },
    {
      ...env,
      type: 'assistant',
      uuid: `c${n}`,
      parentUuid: `p${n}`,
      timestamp: at(t + 1),
      message: {
        id: `msg_c${n}`,
        model: 'claude-opus-4-6',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id,
            name: 'Agent',
            input: { description: `Part ${n}`, prompt: 'Look', subagent_type: 'Explore' },
          },
        ],
        usage,
      },
    },
    {
      ...env,
      type: 'user',
      uuid: `r${n}`,
      parentUuid: `c${n}`,
      timestamp: at(t + 5),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
      toolUseResult: { status: 'completed', agentId, content: [{ type: 'text', text: 'ok' }] },
    },
    {
      ...env,
      type: 'assistant',
      uuid: `d${n}`,
      parentUuid: `r${n}`,
      timestamp: at(t + 6),
      message: {
        id: `msg_d${n}`,
        model: 'claude-opus-4-6',
        role: 'assistant',
        content: [{ type: 'text', text: 'Done.' }],
        stop_reason: 'end_turn',
        usage,
      },
    },
  ];
}

const meta = (agentId: string, toolUseId: string | null): AgentMeta => ({
  agentId,
  agentType: 'Explore',
  description: null,
  toolUseId,
  parentAgentId: null,
});

function sessionOfTwoTurns() {
  const state = createSessionState(SID, FILE);
  // Both agents' files hold no records (never written, or empty).
  for (const id of ['aone', 'atwo', 'aloose']) registerAgentFile(state, id, `agent-${id}.jsonl`);
  addAgentMeta(state, meta('aone', 'toolu_1'));
  addAgentMeta(state, meta('atwo', 'toolu_2'));
  // No call names it: it may be placed by any segment, so each links it.
  addAgentMeta(state, meta('aloose', null));
  [...turn(1, 'aone', 0), ...turn(2, 'atwo', 60)].forEach((l, i) =>
    step(state, { file: FILE, agentId: null }, i + 1, parseRecord(JSON.stringify(l))),
  );
  return state;
}

describe('the agents a segment links', () => {
  it('are those tied to its own calls, and those tied to none', () => {
    const state = sessionOfTwoTurns();
    const reader = createSessionReader(state, wholeSession());
    const prompt = state.entries[4]?.rec;
    if (prompt === undefined) throw new Error('no second prompt');
    const cut = cutBefore(state, reader.carry, 4, prompt);
    expect(cut).not.toBeNull();
    if (cut === null) return;
    expect([...cut.segment.model.agents.keys()]).toEqual(['aone', 'aloose']);
    commitCut(reader, cut);
    const rest = finishSegment(reader.state, reader.carry).model;
    expect([...rest.agents.keys()]).toEqual(['atwo', 'aloose']);
  });

  it('give an agent with no records its row under the call that spawned it', () => {
    const state = sessionOfTwoTurns();
    const reader = createSessionReader(state, wholeSession());
    const prompt = state.entries[4]?.rec;
    if (prompt === undefined) throw new Error('no second prompt');
    const cut = cutBefore(state, reader.carry, 4, prompt);
    if (cut === null) throw new Error('no cut');
    const rows = buildWaterfall(cut.segment.model);
    expect(rows.map((r) => [r.id, r.type, r.label])).toEqual([
      ['toolu_1', 'agent', 'Agent: Part 1'],
    ]);
    expect(cut.segment.model.agents.get('aone')?.turnIndex).toBe(0);
  });

  it('follow a meta that names another call once it is read again', () => {
    const state = sessionOfTwoTurns();
    addAgentMeta(state, meta('aone', 'toolu_2'));
    const model = finishSegment(state, wholeSession()).model;
    // The first agent found for a call takes it: files in the order they registered.
    expect(model.tools.get('toolu_2')?.spawnedAgentKey).toBe('aone');
    expect(model.agents.get('aone')?.toolUseId).toBe('toolu_2');
  });
});
