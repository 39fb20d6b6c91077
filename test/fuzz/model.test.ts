// Property tests over the assembler (finish), the waterfall and the span
// builder: random sessions wired at random, real lines with every known field
// given a wrong type, huge strings and deep nesting. Whatever comes in, nothing
// throws, rows are well formed and spans are valid OTLP (checked on the wire
// too: encoded by ccotel's serializer, decoded with the OTLP schema).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSpans } from '../../src/adapters/otlp/encode.js';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import { parseRecord } from '../../src/core/transcript/parse-record.js';
import type { SpanData, SpanOptions } from '../../src/core/spans/data.js';
import { decodeOtlpRequest } from '../support/otlp-decode.js';
import { allProblems, checkSpans, runPipeline, type MemFile } from '../support/model-checks.js';
import { fixtureSessions, fuzz, linesOf } from '../support/fuzz-config.js';
import { generateSession } from '../support/session-gen.js';

const resource = buildResource({ serviceName: 'fuzz', attributes: {} });
const MODES: SpanOptions[] = [
  { content: 'none', maxAttributeBytes: 2048 },
  { content: 'labels', maxAttributeBytes: 2048 },
  { content: 'full', maxAttributeBytes: 512 },
];

/** What a collector would store, compared with what ccotel meant to send. */
/** Lines of session `sid` in a 2.1.x envelope. */
const lineOf =
  (sid: string) =>
  (o: Record<string, unknown>): string =>
    JSON.stringify({ sessionId: sid, cwd: '/p', version: '2.1.212', ...o });

/** The time `seconds` after the minimal sessions' start. */
const at = (seconds: number): string =>
  new Date(Date.UTC(2026, 2, 1, 10, 0, seconds)).toISOString();

/** An assistant message: one response of these content blocks. */
const response = (id: string, content: unknown[]): Record<string, unknown> => ({
  id,
  model: 'claude-opus-4-6',
  role: 'assistant',
  content,
  usage: { input_tokens: 1, output_tokens: 1 },
});

const taskCall = (id: string): Record<string, unknown> => ({
  type: 'tool_use',
  id,
  name: 'Task',
  input: { description: 'x', prompt: 'y', subagent_type: 'Explore' },
});

/** A sub-agent's file: its prompt, then one response of these blocks. */
function agentLines(
  line: (o: Record<string, unknown>) => string,
  agentId: string,
  content: unknown[],
): string[] {
  const own = { isSidechain: true, agentId };
  return [
    line({
      ...own,
      type: 'user',
      uuid: 'a1',
      parentUuid: null,
      timestamp: at(2),
      message: { role: 'user', content: 'y' },
    }),
    line({
      ...own,
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'a1',
      timestamp: at(3),
      message: response('msg_2', content),
    }),
  ];
}

/** A main file and one sub-agent file, the agent's meta naming `toolUseId` as its spawning call. */
function withOneAgent(
  sid: string,
  agentId: string,
  main: string[],
  agent: string[],
  toolUseId: string,
): Parameters<typeof runPipeline> {
  const files: MemFile[] = [
    { file: `/p/${sid}.jsonl`, agentId: null, bytes: Buffer.from(`${main.join('\n')}\n`) },
    {
      file: `/p/${sid}/subagents/agent-${agentId}.jsonl`,
      agentId,
      bytes: Buffer.from(`${agent.join('\n')}\n`),
    },
  ];
  const meta = { agentId, agentType: 'Explore', description: null, toolUseId, parentAgentId: null };
  return [files, { metas: [meta] }];
}

function wireProblems(spans: SpanData[]): string[] {
  if (spans.length === 0) return [];
  const problems: string[] = [];
  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    const decoded = decodeOtlpRequest(
      encodeSpans(spans, resource, protocol),
      protocol === 'http/json' ? 'json' : 'protobuf',
    );
    if (decoded.length !== spans.length)
      problems.push(`${protocol}: ${decoded.length} of ${spans.length} spans decoded`);
    spans.forEach((s, i) => {
      const d = decoded[i];
      if (d === undefined) return;
      const where = `${protocol} span ${s.name}`;
      if (
        d.traceId !== s.traceId ||
        d.spanId !== s.spanId ||
        d.parentSpanId !== (s.parentSpanId ?? '')
      )
        problems.push(`${where}: ids changed on the wire`);
      if (d.startTimeUnixNano !== BigInt(s.startMs) * 1_000_000n)
        problems.push(`${where}: start ${s.startMs} ms arrived as ${d.startTimeUnixNano} ns`);
      if (d.endTimeUnixNano !== BigInt(s.endMs) * 1_000_000n)
        problems.push(`${where}: end ${s.endMs} ms arrived as ${d.endTimeUnixNano} ns`);
      if (d.endTimeUnixNano < d.startTimeUnixNano)
        problems.push(`${where}: ends before it starts on the wire`);
      if (d.links.length !== s.links.length) problems.push(`${where}: links lost`);
    });
  }
  return problems;
}

describe('random sessions, randomly wired', () => {
  it('never throw; rows are well formed and spans valid, in every content mode', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const session = generateSession(g);
        for (const mode of MODES) {
          const result = runPipeline(session.files, { metas: session.metas, spans: mode });
          // The span tree (parents present, chains ending at the root) has its own property below.
          expect(allProblems(result, { tree: false })).toEqual([]);
        }
      }),
      fuzz(80),
    );
  });

  it('give every span a parent in its own trace, and a parent chain that ends at the turn root', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const session = generateSession(g);
        const result = runPipeline(session.files, { metas: session.metas });
        expect(checkSpans(result.spans)).toEqual([]);
      }),
      fuzz(120),
    );
  });

  // Minimal case of a missing parent: an agent linked to a call written before the
  // first turn began (a main-thread call outside every turn, here because its line has
  // no timestamp). The agent is put in turn 0 and its span's parent is the call's span,
  // which no turn emits.
  it('an agent linked to a call outside every turn still has its parent in the trace', () => {
    const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000006';
    const line = lineOf(sid);
    const main = [
      line({
        type: 'assistant',
        uuid: 'u0',
        parentUuid: null,
        message: response('msg_0', [taskCall('toolu_early')]),
      }),
      line({
        type: 'user',
        uuid: 'u1',
        parentUuid: 'u0',
        timestamp: at(0),
        message: { role: 'user', content: 'go' },
      }),
    ];
    const agent = agentLines(line, 'abc5678', [{ type: 'text', text: 'done' }]);
    const result = runPipeline(...withOneAgent(sid, 'abc5678', main, agent, 'toolu_early'));
    expect(checkSpans(result.spans)).toEqual([]);
  });

  // Minimal case of the loop above: a sub-agent whose spawning call is one of its own
  // calls (its meta file names it; or a result inside its own file carries its agentId).
  // The agent span's parent is the call, the call's parent is the agent: neither reaches
  // the root, and a backend shows both as orphans.
  it('an agent linked to one of its own calls does not make a parent loop', () => {
    const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000004';
    const line = lineOf(sid);
    const main = [
      line({
        type: 'user',
        uuid: 'u1',
        parentUuid: null,
        timestamp: at(0),
        message: { role: 'user', content: 'go' },
      }),
      line({
        type: 'assistant',
        uuid: 'u2',
        parentUuid: 'u1',
        timestamp: at(1),
        message: response('msg_1', [taskCall('toolu_task')]),
      }),
    ];
    const ownCall = { type: 'tool_use', id: 'toolu_own', name: 'Bash', input: { command: 'ls' } };
    const agent = agentLines(line, 'abc1234', [ownCall]);
    const result = runPipeline(...withOneAgent(sid, 'abc1234', main, agent, 'toolu_own'));
    expect(checkSpans(result.spans)).toEqual([]);
  });

  it('arrive on the wire as built (protobuf and JSON)', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const session = generateSession(g);
        const result = runPipeline(session.files, { metas: session.metas });
        expect(wireProblems(result.spans)).toEqual([]);
      }),
      fuzz(40),
    );
  });

  it('are deterministic: the same files give byte-identical spans', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const session = generateSession(g);
        const a = runPipeline(session.files, { metas: session.metas });
        const b = runPipeline(session.files, { metas: session.metas });
        expect(JSON.stringify(b.spans)).toBe(JSON.stringify(a.spans));
      }),
      fuzz(30),
    );
  });

  it('gives content attributes no more bytes than the cap', () => {
    fc.assert(
      fc.property(fc.gen(), fc.integer({ min: 16, max: 600 }), (g, cap) => {
        const session = generateSession(g);
        const result = runPipeline(session.files, {
          metas: session.metas,
          spans: { content: 'full', maxAttributeBytes: cap },
        });
        for (const s of result.spans) {
          for (const key of [
            'gen_ai.tool.call.arguments',
            'gen_ai.tool.call.result',
            'claude_code.turn.prompt',
          ]) {
            const v = s.attributes[key];
            if (typeof v === 'string') expect(Buffer.byteLength(v), key).toBeLessThanOrEqual(cap);
          }
        }
      }),
      fuzz(40),
    );
  });
});

// ---- real lines, every field given a wrong type ----

type Json = Record<string, unknown>;
type Path = (string | number)[];

/** Every path into a JSON value, up to `depth` levels. */
function pathsOf(value: unknown, depth = 6, prefix: Path = []): Path[] {
  if (depth === 0 || typeof value !== 'object' || value === null) return [];
  const out: Path[] = [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.slice(0, 6).map((v, i) => [i, v])
    : Object.entries(value);
  for (const [k, v] of entries) {
    out.push([...prefix, k]);
    out.push(...pathsOf(v, depth - 1, [...prefix, k]));
  }
  return out;
}

// Every field parse-record.ts reads, by where it sits; added when a line lacks it.
const KNOWN_FIELDS: Path[] = [
  ['type'],
  ['uuid'],
  ['parentUuid'],
  ['timestamp'],
  ['sessionId'],
  ['isSidechain'],
  ['agentId'],
  ['cwd'],
  ['gitBranch'],
  ['version'],
  ['forkedFrom'],
  ['forkedFrom', 'sessionId'],
  ['isMeta'],
  ['isCompactSummary'],
  ['toolUseResult'],
  ['toolUseResult', 'agentId'],
  ['toolUseResult', 'status'],
  ['message'],
  ['message', 'content'],
  ['message', 'content', 0],
  ['message', 'content', 0, 'type'],
  ['message', 'content', 0, 'text'],
  ['message', 'content', 0, 'tool_use_id'],
  ['message', 'content', 0, 'is_error'],
  ['message', 'content', 0, 'content'],
  ['message', 'content', 0, 'id'],
  ['message', 'content', 0, 'name'],
  ['message', 'content', 0, 'input'],
  ['message', 'model'],
  ['message', 'id'],
  ['message', 'stop_reason'],
  ['message', 'usage'],
  ['message', 'usage', 'input_tokens'],
  ['message', 'usage', 'output_tokens'],
  ['message', 'usage', 'cache_read_input_tokens'],
  ['message', 'usage', 'cache_creation_input_tokens'],
  ['message', 'usage', 'cache_creation'],
  ['message', 'usage', 'cache_creation', 'ephemeral_1h_input_tokens'],
  ['requestId'],
  ['isApiErrorMessage'],
  ['error'],
  ['subtype'],
  ['durationMs'],
  ['data'],
  ['data', 'type'],
  ['data', 'agentId'],
  ['data', 'message'],
  ['data', 'message', 'type'],
  ['data', 'message', 'message'],
  ['parentToolUseID'],
];

function setAt(root: Json, path: Path, value: unknown): void {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i += 1) {
    const key = path[i] as string | number;
    const holder = node as Record<string | number, unknown>;
    if (typeof holder[key] !== 'object' || holder[key] === null)
      holder[key] = typeof path[i + 1] === 'number' ? [] : {};
    node = holder[key];
  }
  (node as Record<string | number, unknown>)[path[path.length - 1] as string | number] = value;
}

const wrongValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 53 + 1, 0.5, 1e15),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    'user',
    'assistant',
    'tool_use',
    'tool_result',
    'text',
    '<synthetic>',
    'async_launched',
    'agent_progress',
    'turn_duration',
  ),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

describe('real lines with known fields given wrong types', () => {
  const sessions = fixtureSessions().map((s) => ({
    ...s,
    files: s.files.map((f) => ({
      ...f,
      bytes: f.bytes.subarray(0, f.bytes.lastIndexOf(0x0a) + 1),
    })),
  }));

  it('never throw; every invariant holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: sessions.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), wrongValue), {
          minLength: 1,
          maxLength: 12,
        }),
        (index, mutations) => {
          const session = sessions[index] as (typeof sessions)[number];
          const files: MemFile[] = session.files.map((f) => ({ ...f }));
          const perFile = files.map((f) => linesOf(f.bytes).filter((l) => l !== ''));
          for (const [lineAt, pathAt, known, value] of mutations) {
            const fileIndex = lineAt % files.length;
            const lines = perFile[fileIndex] as string[];
            if (lines.length === 0) continue;
            const n = (lineAt >> 3) % lines.length;
            let rec: Json;
            try {
              rec = JSON.parse(lines[n] as string) as Json;
            } catch {
              continue;
            }
            const existing = pathsOf(rec);
            const path =
              known || existing.length === 0
                ? (KNOWN_FIELDS[pathAt % KNOWN_FIELDS.length] as Path)
                : (existing[pathAt % existing.length] as Path);
            setAt(rec, path, value);
            lines[n] = JSON.stringify(rec);
          }
          files.forEach((f, i) => {
            f.bytes = Buffer.from(`${(perFile[i] as string[]).join('\n')}\n`);
          });
          for (const mode of MODES) {
            const result = runPipeline(files, { metas: session.metas, spans: mode });
            // Odd but valid date strings are a value problem, tested on their own below.
            expect(allProblems(result, { timeRange: false })).toEqual([]);
          }
        },
      ),
      fuzz(150),
    );
  });
});

describe('absurd numbers', () => {
  // A right-typed but absurd count (1e308 tokens) makes costs and sums Infinity; OTLP/JSON
  // has no Infinity (JSON.stringify writes null) and a collector rejects the value.
  it('1e308 tokens keep every numeric attribute finite', () => {
    const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000005';
    const recs = [
      {
        type: 'user',
        uuid: 'u1',
        parentUuid: null,
        sessionId: sid,
        timestamp: '2026-03-01T10:00:00.000Z',
        message: { role: 'user', content: 'hi' },
      },
      {
        type: 'assistant',
        uuid: 'u2',
        parentUuid: 'u1',
        sessionId: sid,
        timestamp: '2026-03-01T10:00:01.000Z',
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-6',
          role: 'assistant',
          content: [{ type: 'text', text: 'ok' }],
          usage: { input_tokens: 1e308, output_tokens: 1e308, cache_read_input_tokens: 1e308 },
        },
      },
    ];
    const result = runPipeline([
      {
        file: '/p/n.jsonl',
        agentId: null,
        bytes: Buffer.from(`${recs.map((r) => JSON.stringify(r)).join('\n')}\n`),
      },
    ]);
    expect(checkSpans(result.spans).filter((p) => p.includes('not a valid OTLP value'))).toEqual(
      [],
    );
  });
});

// ---- huge strings ----

describe('huge strings', () => {
  const big = (n: number, unit = 'Ab1 -/+=_'): string =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
  const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001';
  const lines = (payload: string): string[] => [
    JSON.stringify({
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      sessionId: sid,
      timestamp: '2026-03-01T10:00:00.000Z',
      message: { role: 'user', content: payload },
    }),
    JSON.stringify({
      type: 'assistant',
      uuid: 'u2',
      parentUuid: 'u1',
      sessionId: sid,
      timestamp: '2026-03-01T10:00:01.000Z',
      requestId: 'req_1',
      message: {
        id: 'msg_1',
        model: 'claude-opus-4-6',
        role: 'assistant',
        content: [
          { type: 'text', text: payload },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'Bash',
            input: { command: payload, env: { A: payload }, list: [payload, payload] },
          },
        ],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
    JSON.stringify({
      type: 'user',
      uuid: 'u3',
      parentUuid: 'u2',
      sessionId: sid,
      timestamp: '2026-03-01T10:00:02.000Z',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: payload }],
      },
      toolUseResult: { stdout: payload },
    }),
    JSON.stringify({ type: 'x-unknown', blob: payload }),
  ];
  it.each([
    ['3 MB of plain text', big(3 << 20)],
    ['2 MB of one long token', big(2 << 20, 'x')],
    ['2 MB of repeated "=" (a scrubber worst case)', big(2 << 20, '=')],
    ['1 MB of astral characters', big(1 << 20, '😀')],
    ['2 MB of secret-looking assignments', big(2 << 20, 'password=hunter2 ')],
  ])('%s: capped, valid, and in bounded time', (_name, payload) => {
    const started = performance.now();
    for (const mode of MODES) {
      const result = runPipeline(
        [
          {
            file: '/p/big.jsonl',
            agentId: null,
            bytes: Buffer.from(`${lines(payload).join('\n')}\n`),
          },
        ],
        { spans: mode, textLimit: 4096 },
      );
      expect(allProblems(result)).toEqual([]);
      for (const s of result.spans) {
        for (const [k, v] of Object.entries(s.attributes)) {
          if (typeof v === 'string')
            expect(Buffer.byteLength(v), `${mode.content} ${k}`).toBeLessThanOrEqual(
              Math.max(mode.maxAttributeBytes, 240 * 4),
            );
        }
      }
      const tool = result.model.tools.get('toolu_1');
      expect(JSON.stringify(tool?.input).length).toBeLessThan(20 * 4096);
    }
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

// ---- deep nesting ----

describe('deep nesting', () => {
  const DEPTH = 100_000;
  const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
  const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000002';
  /** A small valid session with DEEP spliced in at one place. */
  const session = (place: string): string => {
    const recs = [
      {
        type: 'user',
        uuid: 'u1',
        parentUuid: null,
        sessionId: sid,
        timestamp: '2026-03-01T10:00:00.000Z',
        message: { role: 'user', content: place === 'prompt' ? 'DEEP' : 'hi' },
        extra: place === 'unknown field' ? 'DEEP' : 0,
      },
      {
        type: 'assistant',
        uuid: 'u2',
        parentUuid: 'u1',
        sessionId: sid,
        timestamp: '2026-03-01T10:00:01.000Z',
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-6',
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_1',
              name: 'Bash',
              input: { command: 'ls', nested: place === 'tool input' ? 'DEEP' : 0 },
            },
          ],
          usage: place === 'usage' ? 'DEEP' : { input_tokens: 1, output_tokens: 1 },
        },
      },
      {
        type: 'user',
        uuid: 'u3',
        parentUuid: 'u2',
        sessionId: sid,
        timestamp: '2026-03-01T10:00:02.000Z',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: place === 'tool result' ? 'DEEP' : 'ok',
            },
          ],
        },
        toolUseResult: place === 'toolUseResult' ? 'DEEP' : {},
      },
      {
        type: 'progress',
        uuid: 'u4',
        sessionId: sid,
        timestamp: '2026-03-01T10:00:03.000Z',
        data: place === 'progress data' ? 'DEEP' : { type: 'hook_progress' },
      },
    ];
    return `${recs.map((r) => JSON.stringify(r)).join('\n')}\n`;
  };
  const places = [
    'unknown field',
    'prompt',
    'tool input',
    'tool result',
    'toolUseResult',
    'usage',
    'progress data',
  ];
  const cases = places.flatMap((place) => [
    [`${place}, arrays`, place, deepArray],
    [`${place}, objects`, place, deepObject],
  ]) as [string, string, string][];

  // A 100k-deep value parses (V8's JSON.parse is not recursive); everything after
  // it — clipping, scrubbing, JSON output, OTLP encoding — must not recurse into it.
  it.each(cases)(
    '%s: no throw in any content mode, rows serialize, spans encode',
    (_name, place, deep) => {
      const text = session(place).replace('"DEEP"', deep);
      for (const mode of MODES) {
        const result = runPipeline(
          [{ file: '/p/deep.jsonl', agentId: null, bytes: Buffer.from(text) }],
          { spans: mode },
        );
        expect(allProblems(result)).toEqual([]);
        expect(() => JSON.stringify(result.rows)).not.toThrow();
        expect(() => encodeSpans(result.spans, resource, 'http/protobuf')).not.toThrow();
        expect(() => encodeSpans(result.spans, resource, 'http/json')).not.toThrow();
      }
    },
  );
});

// ---- timestamps OTLP cannot carry ----

describe('timestamps outside what OTLP can carry', () => {
  // OTLP times are unsigned 64-bit nanoseconds: 1970-01-01 .. 2554-07-21. A line
  // with a valid but out-of-range date must not produce a span that a collector
  // rejects (a 400 fails the whole batch) or that wraps around to another date.
  it.each([
    '1969-12-31T23:59:59.000Z',
    '0001-01-01T00:00:00.000Z',
    '2600-01-01T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
  ])('a prompt dated %s', (date) => {
    const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000003';
    const recs = [
      {
        type: 'user',
        uuid: 'u1',
        parentUuid: null,
        sessionId: sid,
        timestamp: date,
        message: { role: 'user', content: 'hi' },
      },
      {
        type: 'assistant',
        uuid: 'u2',
        parentUuid: 'u1',
        sessionId: sid,
        timestamp: '2026-03-01T10:00:01.000Z',
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-6',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      {
        type: 'user',
        uuid: 'u3',
        parentUuid: 'u2',
        sessionId: sid,
        timestamp: date,
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }],
        },
      },
    ];
    expect(parseRecord(JSON.stringify(recs[0])).kind).toBe('record');
    const result = runPipeline([
      {
        file: '/p/t.jsonl',
        agentId: null,
        bytes: Buffer.from(`${recs.map((r) => JSON.stringify(r)).join('\n')}\n`),
      },
    ]);
    expect(checkSpans(result.spans)).toEqual([]);
    expect(wireProblems(result.spans)).toEqual([]);
  });

  it('random sessions with such dates keep spans inside the range', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const session = generateSession(g, { timeRange: 'any' });
        const result = runPipeline(session.files, { metas: session.metas });
        expect(checkSpans(result.spans)).toEqual([]);
      }),
      fuzz(60),
    );
  });
});
