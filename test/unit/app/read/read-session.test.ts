// Edge cases of reading a session in segments (src/app/read/read-session.ts),
// each a small transcript written to a temp dir and read both ways: whole
// (sessionSpans) and in segments as small as possible (a cut tried before
// every prompt). Found in review; every fixture and a long real transcript are
// compared in fast-path-equivalence.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import { findSessions, type SessionFiles } from '../../../../src/adapters/files/session-files.js';
import type { PriceTable } from '../../../../src/core/cost/pricing.js';
import type { SpanOptions } from '../../../../src/core/spans/data.js';
import { readSession } from '../../../../src/app/read/read-session.js';
import type { ProtobufTurn } from '../../../../src/app/read/session-spans.js';
import { sessionSpans, streamSessionSpans } from '../../../support/whole-session.js';
import { ON_LINUX } from '../../../support/platform.js';

const SESSION = '5e55e55e-0000-4000-8000-000000000000';
const AGENT = 'a1b2c3d4e5f6a7b8c';
const options: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };
let prices: PriceTable;
const dirs: string[] = [];

beforeAll(async () => {
  prices = await loadPriceTable();
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const uuid = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const at = (s: number): string => new Date(Date.UTC(2026, 5, 1, 10, 0, s)).toISOString();
const common = { sessionId: SESSION, cwd: '/w', version: '2.1.50', gitBranch: 'main' };

/** One line of the main thread, or of the agent when `agent` is set. */
function line(
  s: number,
  type: 'user' | 'assistant',
  fields: Record<string, unknown>,
  agent = false,
): Record<string, unknown> {
  return {
    ...common,
    type,
    isSidechain: agent,
    ...(agent ? { agentId: AGENT } : {}),
    uuid: uuid(),
    parentUuid: null,
    timestamp: at(s),
    ...fields,
  };
}

/** An assistant line: one API response of one content block. */
function response(
  s: number,
  stop: string,
  block: Record<string, unknown>,
  agent = false,
): Record<string, unknown> {
  const model = agent ? 'claude-haiku-4-5' : 'claude-sonnet-4-5';
  return line(
    s,
    'assistant',
    {
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        model,
        role: 'assistant',
        stop_reason: stop,
        usage: { input_tokens: 10, output_tokens: 5 },
        content: [block],
      },
    },
    agent,
  );
}

const prompt = (s: number, text: string): Record<string, unknown> =>
  line(s, 'user', { message: { role: 'user', content: text } });
const call = (s: number, tool: string, input: Record<string, unknown>) =>
  response(s, 'tool_use', { type: 'tool_use', id: tool, name: 'Task', input });
const result = (s: number, tool: string, toolUseResult: unknown) =>
  line(s, 'user', {
    toolUseResult,
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: tool, content: 'done' }],
    },
  });
const answer = (s: number, text = 'Done.') => response(s, 'end_turn', { type: 'text', text });
const agentLine = (s: number, role: 'user' | 'assistant', text: string) =>
  role === 'user'
    ? line(s, 'user', { message: { role: 'user', content: text } }, true)
    : response(s, 'end_turn', { type: 'text', text }, true);

/** Writes the session (main file, agent file, meta) and returns its files. */
async function session(
  main: Record<string, unknown>[],
  agent: Record<string, unknown>[] = [],
  meta?: Record<string, unknown>,
): Promise<SessionFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'ccotel-seg-'));
  dirs.push(dir);
  const jsonl = (lines: Record<string, unknown>[]) =>
    lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  writeFileSync(join(dir, `${SESSION}.jsonl`), jsonl(main));
  if (agent.length > 0 || meta !== undefined) {
    mkdirSync(join(dir, SESSION, 'subagents'), { recursive: true });
    writeFileSync(join(dir, SESSION, 'subagents', `agent-${AGENT}.jsonl`), jsonl(agent));
    if (meta !== undefined)
      writeFileSync(
        join(dir, SESSION, 'subagents', `agent-${AGENT}.meta.json`),
        JSON.stringify(meta),
      );
  }
  const [files] = await findSessions(dir);
  return files as SessionFiles;
}

async function bothWays(files: SessionFiles) {
  const whole = await sessionSpans(files, prices, options);
  const turns: ProtobufTurn[] = [];
  const read = await streamSessionSpans(
    files,
    prices,
    options,
    (part) => {
      turns.push(...part);
    },
    { segmentRecords: 1, forceRecords: Number.POSITIVE_INFINITY },
  );
  return { whole: whole.turns, segmented: turns, read };
}

describe('reading in segments: cases from review', () => {
  // A Task resumed in a later turn: the same agentId, one agent file, lines in both turns.
  const resumed = (): Record<string, unknown>[] => [
    prompt(0, 'First'),
    call(1, 'toolu_T1', { description: 'look', prompt: 'look', subagent_type: 'Explore' }),
    result(6, 'toolu_T1', { agentId: AGENT, status: 'completed' }),
    answer(7),
    prompt(100, 'Second'),
    call(101, 'toolu_T2', {
      description: 'again',
      prompt: 'again',
      resume: AGENT,
      subagent_type: 'Explore',
    }),
    result(106, 'toolu_T2', { agentId: AGENT, status: 'completed' }),
    answer(107),
  ];
  const agentLines = (): Record<string, unknown>[] => [
    agentLine(2, 'user', 'look'),
    agentLine(5, 'assistant', 'found'),
    agentLine(102, 'user', 'again'),
    agentLine(105, 'assistant', 'found again'),
  ];

  it('a resumed agent is not linked again by the later call', async () => {
    const { whole, segmented, read } = await bothWays(await session(resumed(), agentLines()));
    expect(whole.length).toBe(2);
    expect(read.segments).toBe(2);
    expect(segmented).toEqual(whole);
  });

  it("a resumed agent whose meta names the later call joins that call's segment", async () => {
    const { whole, segmented, read } = await bothWays(
      await session(resumed(), agentLines(), { agentType: 'Explore', toolUseId: 'toolu_T2' }),
    );
    expect(segmented).toEqual(whole);
    expect(read.forcedCuts).toBe(0);
  });

  it('a repeated prompt line (same uuid) opens no segment and no turn', async () => {
    const p1 = prompt(0, 'First');
    const { whole, segmented, read } = await bothWays(
      await session([
        p1,
        answer(1),
        prompt(10, 'Second'),
        answer(11),
        { ...p1 },
        answer(12, 'more'),
      ]),
    );
    expect(whole.length).toBe(2);
    expect(read.segments).toBe(2);
    expect(segmented).toEqual(whole);
  });

  it('an unlinked agent whose first line is over 64 KB joins the segment it started in', async () => {
    const { whole, segmented } = await bothWays(
      await session(
        [prompt(0, 'First'), answer(1), prompt(100, 'Second'), answer(101)],
        [agentLine(5, 'user', 'x'.repeat(70_000)), agentLine(6, 'assistant', 'ok')],
      ),
    );
    expect(whole.flatMap((t) => t.spans).length).toBeGreaterThan(4);
    expect(segmented).toEqual(whole);
  });

  it("an error from the consumer is the caller's, not a vanished transcript", async () => {
    const files = await session([
      prompt(0, 'First'),
      answer(1),
      prompt(100, 'Second'),
      answer(101),
    ]);
    let calls = 0;
    const denied = Object.assign(new Error('EACCES: permission denied, open out.json'), {
      code: 'EACCES',
    });
    await expect(
      streamSessionSpans(
        files,
        prices,
        options,
        () => {
          calls += 1;
          if (calls === 1) throw denied;
        },
        { segmentRecords: 1 },
      ),
    ).rejects.toBe(denied);
  });

  it('false from the consumer stops reading and still reports the warnings read so far', async () => {
    const files = await session([
      prompt(0, 'First'),
      answer(1),
      prompt(100, 'Second'),
      answer(101),
    ]);
    const got: ProtobufTurn[] = [];
    const read = await streamSessionSpans(
      files,
      prices,
      options,
      (part) => {
        got.push(...part);
        return false;
      },
      { segmentRecords: 1 },
    );
    expect(read.stopped).toBe(true);
    expect(got.length).toBe(1);
  });

  it.skipIf(!ON_LINUX)(
    'a caller that breaks out after the first segment releases the file and reads no agent (Linux only: counts /proc/self/fd)',
    async () => {
      const files = await session(
        [prompt(0, 'First'), answer(1), prompt(100, 'Second'), answer(101)],
        [agentLine(150, 'user', 'late'), agentLine(151, 'assistant', 'ok')],
      );
      const fds = readdirSync('/proc/self/fd').length;
      const read = readSession(files, { parse: {}, segmentRecords: 1 });
      const firstTurns: number[] = [];
      for await (const segment of read.segments()) {
        firstTurns.push(segment.model.turns.length - segment.firstTurn);
        break;
      }
      expect(firstTurns).toEqual([1]);
      expect(read.segmentCount).toBe(1);
      expect(readdirSync('/proc/self/fd').length).toBe(fds);
      // Only the first turn's two lines were read: neither the second prompt nor
      // the agent, which started after the cut.
      expect(read.state.seenUuids.size).toBe(2);
    },
  );
});
