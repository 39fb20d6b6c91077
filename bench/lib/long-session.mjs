// A long, realistic-shaped Claude Code session, generated: many turns spread
// over a day with idle gaps between them, prompts in CJK scripts and emoji,
// Bash calls behind `cd <dir> &&`, file tools on long paths, failed calls, and
// sub-agents (Explore, Plan, general-purpose) in their own files with meta
// sidecars. Deterministic for a seed. Used by the view tests (a fixture of a
// few hundred calls) and bench/show-views.mjs (5,000 calls).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from './prng.mjs';

const CWD = '/home/dev/projects/payments-gateway';
const PROMPTS = [
  '認証モジュールのテストが失敗しています。原因を調べて修正してください 🔧',
  '新しい決済APIのエンドポイントを追加して、ドキュメントも更新して 🚀',
  '这个函数为什么这么慢？请帮我优化一下，并补充单元测试 🐢',
  '로그인 버그를 고쳐 주세요. 세션이 가끔 만료됩니다 🐛',
  'Refactor the retry policy ✨ and keep the idempotency keys 🔑',
  'Résumé of the café module: explain what it does (e\u0301 combining) 📚',
  'リリースノートを書いて、CHANGELOG.md に追加してください 📝',
  '日本語のエラーメッセージを全部英語に置き換えて 🌐 それからテストを実行',
];
const BASH = [
  'npm test',
  'npx vitest run test/unit/retry.test.ts',
  'git status --short',
  'git log --oneline -20',
  'npm run build',
  'rg -n "processorClient" src',
  'ls -la src/routes',
];
const FILES = [
  'src/processor/client.ts',
  'src/routes/checkout.ts',
  'src/routes/refunds.ts',
  'packages/server/src/modules/authentication/providers/oauth.ts',
  'docs/設計メモ.md',
  'test/unit/retry.test.ts',
];
const AGENT_TYPES = ['Explore', 'Plan', 'general-purpose'];

const hex = (n, width) => n.toString(16).padStart(width, '0');

/**
 * Writes `<dir>/<sessionId>.jsonl` (and its sub-agent files) and returns what
 * it wrote. Options: turns, callsPerTurn, seed, start (ISO), agentEvery (every
 * Nth call of a turn is an agent with 3 calls inside), errorEvery.
 */
export function writeLongSession(options) {
  const {
    dir,
    turns = 40,
    callsPerTurn = 8,
    seed = 1,
    start = '2026-11-30T07:00:00.000Z',
    agentEvery = 5,
    errorEvery = 7,
  } = options;
  const rand = mulberry32(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const sessionId = `${hex(seed, 8)}-1111-4222-8333-444444444444`;
  let uuidN = 0;
  let toolN = 0;
  let msgN = 0;
  const uuid = () => `00000000-0000-4000-8000-${hex(++uuidN, 12)}`;
  const toolId = () => `toolu_01${hex(++toolN, 22)}`;
  const msgId = () => `msg_01${hex(++msgN, 22)}`;
  const main = [];
  const agents = [];
  const iso = (ms) => new Date(ms).toISOString();
  const envelope = (rec, parent, ms, agentId) => ({
    parentUuid: parent,
    isSidechain: agentId !== null,
    ...(agentId === null ? {} : { agentId }),
    userType: 'external',
    cwd: CWD,
    sessionId,
    version: '2.1.212',
    gitBranch: 'main',
    uuid: uuid(),
    timestamp: iso(ms),
    ...rec,
  });
  const usage = (input) => ({
    input_tokens: 3,
    cache_creation_input_tokens: Math.floor(input * 0.1),
    cache_read_input_tokens: Math.floor(input * 0.9),
    output_tokens: 40 + Math.floor(rand() * 400),
  });

  /** One tool call: the assistant line issuing it, the user line answering it. */
  const call = (lines, state, name, input, took, isError, agentId, extraResult) => {
    const id = toolId();
    const asst = envelope(
      {
        type: 'assistant',
        message: {
          model: 'claude-opus-4-6',
          id: msgId(),
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id, name, input }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: usage(state.context),
        },
      },
      state.parent,
      state.t,
      agentId,
    );
    lines.push(asst);
    state.t += took;
    const result = envelope(
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              tool_use_id: id,
              type: 'tool_result',
              content: isError ? 'Exit code 1\nFAIL test/unit/retry.test.ts' : 'ok',
              ...(isError ? { is_error: true } : {}),
            },
          ],
        },
        ...(extraResult ?? {}),
      },
      asst.uuid,
      state.t,
      agentId,
    );
    lines.push(result);
    state.parent = result.uuid;
    state.t += 300 + Math.floor(rand() * 2000);
    state.context += 800;
    return id;
  };

  const plainCall = (lines, state, agentId, i, errorHere, long) => {
    const kind = i % 3;
    const took = long ? 60_000 + Math.floor(rand() * 120_000) : 150 + Math.floor(rand() * 8000);
    if (kind === 0)
      return call(
        lines,
        state,
        'Bash',
        { command: `cd ${CWD} && ${pick(BASH)}`, description: 'run it' },
        took,
        errorHere,
        agentId,
      );
    const name = kind === 1 ? 'Read' : 'Edit';
    const input = { file_path: `${CWD}/${pick(FILES)}`, old_string: 'a', new_string: 'b' };
    return call(lines, state, name, input, took, errorHere, agentId);
  };

  let t = Date.parse(start);
  // Turns are spread over about a day: idle gaps of minutes to hours between them.
  const gapMs = Math.floor((20 * 3600_000) / Math.max(1, turns));
  let calls = 0;
  for (let turn = 0; turn < turns; turn++) {
    const prompt = envelope(
      {
        type: 'user',
        message: { role: 'user', content: `${PROMPTS[turn % PROMPTS.length]} (#${turn})` },
      },
      null,
      t,
      null,
    );
    main.push(prompt);
    const state = { parent: prompt.uuid, t: t + 2000, context: 20_000 };
    const longAt = Math.floor(rand() * callsPerTurn);
    for (let i = 0; i < callsPerTurn; i++) {
      const errorHere = (turn * callsPerTurn + i) % errorEvery === errorEvery - 1;
      if (i % agentEvery === agentEvery - 1) {
        const agentId = `a${hex(seed, 4)}${hex(turn, 6)}${hex(i, 6)}`;
        const agentType = AGENT_TYPES[(turn + i) % AGENT_TYPES.length];
        const started = state.t;
        const sub = [];
        const subState = { parent: null, t: started + 500, context: 6000 };
        const subPrompt = envelope(
          { type: 'user', message: { role: 'user', content: 'Look into it' } },
          null,
          subState.t,
          agentId,
        );
        sub.push(subPrompt);
        subState.parent = subPrompt.uuid;
        subState.t += 400;
        for (let k = 0; k < 3; k++)
          plainCall(sub, subState, agentId, k, k === 2 && errorHere, false);
        calls += 3;
        const took = subState.t - started + 500;
        const id = call(
          main,
          state,
          'Agent',
          {
            description: `Investigate part ${i}`,
            prompt: 'Look into it',
            subagent_type: agentType,
          },
          took,
          false,
          null,
          {
            toolUseResult: {
              status: 'completed',
              agentId,
              agentType,
              content: [{ type: 'text', text: 'done' }],
            },
          },
        );
        agents.push({
          agentId,
          lines: sub,
          meta: { agentType, description: `Investigate part ${i}`, toolUseId: id, spawnDepth: 1 },
        });
      } else {
        plainCall(main, state, null, i, errorHere, i === longAt);
      }
      calls += 1;
    }
    const done = envelope(
      {
        type: 'assistant',
        message: {
          model: 'claude-opus-4-6',
          id: msgId(),
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: '終わりました。Done ✅' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: usage(state.context),
        },
      },
      state.parent,
      state.t,
      null,
    );
    main.push(done);
    main.push(
      envelope(
        { type: 'system', subtype: 'turn_duration', durationMs: state.t - t, isMeta: false },
        done.uuid,
        state.t + 5,
        null,
      ),
    );
    t = Math.max(state.t + 60_000, t + gapMs + Math.floor(rand() * gapMs * 0.5));
  }

  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${sessionId}.jsonl`);
  writeFileSync(file, main.map((r) => JSON.stringify(r)).join('\n') + '\n');
  if (agents.length > 0) {
    const subDir = join(dir, sessionId, 'subagents');
    mkdirSync(subDir, { recursive: true });
    for (const a of agents) {
      writeFileSync(
        join(subDir, `agent-${a.agentId}.jsonl`),
        a.lines.map((r) => JSON.stringify(r)).join('\n') + '\n',
      );
      writeFileSync(
        join(subDir, `agent-${a.agentId}.meta.json`),
        JSON.stringify(a.meta, null, 2) + '\n',
      );
    }
  }
  return { file, sessionId, turns, calls };
}
