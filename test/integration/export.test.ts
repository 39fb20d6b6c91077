// ccotel export against a real in-process OTLP/HTTP receiver that decodes the
// requests with the OTLP protobuf schema (test/support/otlp-proto), not with the
// serializer that wrote them.
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { runCcotel } from '../support/run-cli.js';

const FIXTURE = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';
const SESSION = '491e126e-1e71-469c-ade2-fcc8af567c74';

let dir: string;
let receiver: OtlpReceiver;
let transcript: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-export-'));
  transcript = join(dir, `${SESSION}.jsonl`);
  await copyFile(FIXTURE, transcript);
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
});

const exportArgs = (...extra: string[]): string[] => [
  'export',
  '--endpoint',
  receiver.url,
  '--state-dir',
  join(dir, 'state'),
  ...extra,
  transcript,
];

function byName(spans: DecodedSpan[], name: string): DecodedSpan[] {
  return spans.filter((s) => s.name === name);
}

function only(spans: DecodedSpan[], name: string): DecodedSpan {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as DecodedSpan;
}

const nanos = (iso: string): bigint => BigInt(Date.parse(iso)) * 1_000_000n;

describe('ccotel export', () => {
  it('sends one trace per turn with the whole span tree', async () => {
    const run = await runCcotel(exportArgs('--quiet'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const spans = receiver.spans();
    const roots = byName(spans, 'invoke_agent Claude Code');
    expect(roots).toHaveLength(2);
    // Every span carries the session (dashboards of Claude Code's own telemetry key on session.id);
    // the provider is on the model calls only: an in-process invoke_agent has none (semconv).
    for (const span of spans) {
      expect(span.attributes['session.id'], span.name).toBe(SESSION);
      expect(span.attributes['gen_ai.conversation.id'], span.name).toBe(SESSION);
      expect(span.attributes['gen_ai.provider.name'], span.name).toBe(
        span.name.startsWith('chat ') ? 'anthropic' : undefined,
      );
    }
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);

    const [turn0, turn1] = roots.sort(
      (a, b) =>
        Number(a.attributes['claude_code.turn.index']) -
        Number(b.attributes['claude_code.turn.index']),
    ) as [DecodedSpan, DecodedSpan];
    expect(turn0.kind).toBe('INTERNAL');
    expect(turn0.parentSpanId).toBe('');
    expect(turn0.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Claude Code',
      'gen_ai.conversation.id': SESSION,
      'session.id': SESSION,
      'claude_code.turn.index': 0,
      'claude_code.turn.end_state': 'interrupted',
      'claude_code.cwd': '/home/marco/projects/spotter',
      'vcs.repository.ref.name': 'master',
      'claude_code.version': '2.1.38',
      'claude_code.turn.label': '/handgemacht:create-beads',
    });
    // The turn starts at its prompt (line 4) and ends at its last event.
    expect(turn0.startTimeUnixNano).toBe(nanos('2026-02-10T21:54:53.186Z'));
    expect(turn1.attributes['claude_code.turn.end_state']).toBe('completed');
    expect(turn1.startTimeUnixNano).toBe(nanos('2026-02-10T22:01:14.815Z'));
    expect(turn1.endTimeUnixNano).toBe(nanos('2026-02-10T22:03:51.807Z'));
    // Turn 1 links back to turn 0's root.
    expect(turn1.links).toEqual([
      {
        traceId: turn0.traceId,
        spanId: turn0.spanId,
        attributes: { 'claude_code.link.type': 'previous_turn' },
      },
    ]);
    expect(turn0.links).toEqual([]);

    // The Task call → invoke_agent Plan → the sub-agent's own calls and chats.
    const task = only(spans, 'execute_tool Task');
    expect(task.parentSpanId).toBe(turn0.spanId);
    expect(task.attributes).toMatchObject({
      'gen_ai.tool.name': 'Task',
      'gen_ai.tool.call.id': 'toolu_01Cz2Pnv7qNcnK1ZiocxWhQX',
      'gen_ai.tool.type': 'function',
    });
    const agent = only(spans, 'invoke_agent Plan');
    expect(agent.parentSpanId).toBe(task.spanId);
    expect(agent.traceId).toBe(turn0.traceId);
    expect(agent.attributes).toMatchObject({
      'gen_ai.agent.name': 'Plan',
      'claude_code.agent.id': 'afb92ff',
      'gen_ai.invocation.is_nested': true,
    });
    const agentChildren = spans.filter((s) => s.parentSpanId === agent.spanId);
    expect(
      agentChildren
        .filter((s) => s.name.startsWith('execute_tool'))
        .map((s) => s.name)
        .sort(),
    ).toEqual(
      [
        'execute_tool Bash',
        'execute_tool Bash',
        'execute_tool Bash',
        'execute_tool Bash',
        'execute_tool Read',
        'execute_tool Read',
        'execute_tool Read',
        'execute_tool Read',
        'execute_tool Read',
      ].sort(),
    );
    expect(agentChildren.filter((s) => s.name.startsWith('chat '))).not.toHaveLength(0);
    for (const chat of agentChildren.filter((s) => s.name.startsWith('chat '))) {
      expect(chat.kind).toBe('CLIENT');
      expect(chat.attributes['claude_code.agent.type']).toBe('Plan');
    }
    // The sub-agent's three failing calls are errors with a type.
    const failed = agentChildren.filter((s) => s.status.code === 'ERROR');
    expect(failed).toHaveLength(3);
    for (const f of failed) expect(f.attributes['error.type']).toBe('tool_error');

    // Every span's parent exists in its own trace, and end ≥ start.
    const ids = new Set(spans.map((s) => `${s.traceId}/${s.spanId}`));
    for (const s of spans) {
      if (s.parentSpanId !== '')
        expect(ids.has(`${s.traceId}/${s.parentSpanId}`), s.name).toBe(true);
      expect(s.endTimeUnixNano >= s.startTimeUnixNano, s.name).toBe(true);
    }
    // Resource: service.name default and host.name.
    expect(turn0.resource['service.name']).toBe('claude-code');
    expect(typeof turn0.resource['host.name']).toBe('string');
    expect(turn0.scope.name).toBe('ccotel');
  });

  it('counts usage once per API response on chat spans', async () => {
    await runCcotel(exportArgs('--quiet'));
    const chats = receiver.spans().filter((s) => s.name.startsWith('chat '));
    const responseIds = chats.map((s) => s.attributes['gen_ai.response.id']);
    expect(new Set(responseIds).size).toBe(responseIds.length);
    // Message …EieBJx is written over 7 lines (3 text/thinking, 4 tool_use), each repeating usage.
    const first = chats.find((s) => String(s.attributes['gen_ai.response.id']).endsWith('EieBJx'));
    expect(first?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude-opus-4-6',
      'gen_ai.usage.input_tokens': 28162,
    });
    // Turn totals equal the sum over the turn's chat spans.
    for (const root of receiver.spans().filter((s) => s.name === 'invoke_agent Claude Code')) {
      const sum = chats
        .filter((c) => c.traceId === root.traceId)
        .reduce((n, c) => n + Number(c.attributes['gen_ai.usage.input_tokens']), 0);
      expect(root.attributes['claude_code.turn.input_tokens']).toBe(sum);
    }
  });

  it('sends the same spans in http/json and http/protobuf', async () => {
    await runCcotel(exportArgs('--quiet', '--protocol', 'http/protobuf'));
    const proto = receiver.spans();
    expect(receiver.requests().every((r) => r.encoding === 'protobuf')).toBe(true);
    const other = await startOtlpReceiver();
    try {
      const run = await runCcotel([
        'export',
        '--endpoint',
        other.url,
        '--protocol',
        'http/json',
        '--state-dir',
        join(dir, 'state-json'),
        '--quiet',
        transcript,
      ]);
      expect(run.code).toBe(0);
      expect(other.requests().every((r) => r.encoding === 'json')).toBe(true);
      const key = (s: DecodedSpan): string => s.spanId;
      expect([...other.spans()].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
        [...proto].sort((a, b) => key(a).localeCompare(key(b))),
      );
    } finally {
      await other.stop();
    }
  });

  it('is idempotent: a re-run sends nothing, --force resends identical spans', async () => {
    expect((await runCcotel(exportArgs('--quiet'))).code).toBe(0);
    const first = receiver.spans();
    const again = await runCcotel(exportArgs());
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('2 turns (2 unchanged, skipped)');
    expect(receiver.spans()).toHaveLength(first.length);
    expect((await runCcotel(exportArgs('--quiet', '--force'))).code).toBe(0);
    const resent = receiver.spans().slice(first.length);
    expect(resent).toEqual(first);
  });

  it('loses nothing when the receiver answers 503 and 429 with Retry-After first', async () => {
    receiver.script([
      { status: 503, retryAfter: '1' },
      { status: 429, retryAfter: '1' },
    ]);
    const run = await runCcotel(exportArgs('--quiet'));
    expect(run.code).toBe(0);
    const statuses = receiver.requests().map((r) => r.status);
    expect(statuses.slice(0, 3)).toEqual([503, 429, 200]);
    const reference = await startOtlpReceiver();
    try {
      await runCcotel([
        'export',
        '--endpoint',
        reference.url,
        '--state-dir',
        join(dir, 'ref'),
        '--quiet',
        transcript,
      ]);
      expect(receiver.spans().length).toBe(reference.spans().length);
    } finally {
      await reference.stop();
    }
  });

  it('exits 1 with one line when the receiver is down, and leaves the state file as it was', async () => {
    await receiver.stop();
    const run = await runCcotel([...exportArgs('--quiet', '--timeout', '500')]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ccotel: could not deliver spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: ECONNREFUSED/,
    );
    expect(await stat(join(dir, 'state', 'export-state.json')).catch(() => null)).toBeNull();
    await receiver.restart();
  }, 60_000);

  it('writes OTLP/JSON requests to --out without touching the network or the state', async () => {
    const out = join(dir, 'out.jsonl');
    const run = await runCcotel([
      'export',
      '--out',
      out,
      '--state-dir',
      join(dir, 'state'),
      '--quiet',
      transcript,
    ]);
    expect(run.code).toBe(0);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    const request = JSON.parse(lines[0] ?? '{}') as {
      resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
    };
    expect(request.resourceSpans[0]?.scopeSpans[0]?.spans.length).toBeGreaterThan(0);
    expect(receiver.requests()).toHaveLength(0);
    expect(await stat(join(dir, 'state', 'export-state.json')).catch(() => null)).toBeNull();
  });
});
