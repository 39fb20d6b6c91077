// `ccotel export --schema claude-code`: Claude Code's own span names and its
// events as OTLP log records, written by --out and sent to a real OTLP
// receiver (spans to /v1/traces, events to /v1/logs), with the delivery rules
// of spans; and `--schema genai` is today's output, byte for byte.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeJsonTraces,
  decodeOtlpLogsRequest,
  type DecodedLogRecord,
  type DecodedSpan,
} from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCcotel } from '../support/run-cli.js';

const REJECTED = 'fixtures/hand/rejected-tool';
const SAMPLE = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-cc-schema-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The --out file's requests: span lines and log lines, decoded apart. */
function readOut(path: string): {
  spans: DecodedSpan[];
  logs: DecodedLogRecord[];
  lines: string[];
} {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const spans: DecodedSpan[] = [];
  const logs: DecodedLogRecord[] = [];
  for (const line of lines)
    if (line.startsWith('{"resourceLogs"'))
      logs.push(...decodeOtlpLogsRequest(Buffer.from(line), 'json'));
    else spans.push(...decodeJsonTraces(line));
  return { spans, logs, lines };
}

async function exportOut(target: string, ...extra: string[]) {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.jsonl`);
  const run = await runCcotel(['export', target, '--out', out, '--state-dir', dir, ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return { run, out, ...readOut(out) };
}

/** A span as the hand-written expectations give it: its parent by name, times in ms. */
function shape(spans: DecodedSpan[]) {
  const names = new Map(spans.map((s) => [s.spanId, s.name]));
  return spans.map((s) => ({
    name: s.name,
    parent: names.get(s.parentSpanId) ?? null,
    startMs: Number(s.startTimeUnixNano / 1_000_000n),
    endMs: Number(s.endTimeUnixNano / 1_000_000n),
    status: s.status.code,
    attributes: s.attributes,
  }));
}

const SESSION = 'edfd17db-a1f9-46ec-ab1b-f48104846966';
const T0 = Date.parse('2026-02-03T10:12:00.000Z');

describe('export --schema claude-code --out, by hand from the Monitoring page', () => {
  // fixtures/hand/rejected-tool: a prompt, a Read that ran (30 ms), an Edit the user rejected
  // after 3.25 s. Keys as the page's tables name them ("Span attributes", "Events");
  // values from the fixture's lines (haiku 4.5: $1 in, $5 out, $0.10 cache read, $2 1h write).
  it('writes the spans of a turn with a rejected call', async () => {
    const { spans } = await exportOut(REJECTED, '--schema', 'claude-code');
    const std = (type: string) => ({ 'session.id': SESSION, 'span.type': type });
    const request = (n: 1 | 2) =>
      n === 1
        ? {
            request_id: 'req_011Cr8PCrTPDCpJ9zxNrFCgA',
            input_tokens: 10,
            output_tokens: 8,
            cache_read_tokens: 15300,
            cache_creation_tokens: 2950,
            duration_ms: 2400,
            cost: 0.00748,
            message: 'msg_01G46HJ1Q6thFDcOerXBg3MR',
          }
        : {
            request_id: 'req_011CHDvGoNFlon2InHgAeOXH',
            input_tokens: 13,
            output_tokens: 1,
            cache_read_tokens: 18250,
            cache_creation_tokens: 270,
            duration_ms: 1270,
            cost: 0.002383,
            message: 'msg_01FhWt4NAttBSNAOZI94FCOi',
          };
    const llm = (n: 1 | 2) => {
      const r = request(n);
      return {
        ...std('llm_request'),
        model: 'claude-haiku-4-5-20251001',
        'gen_ai.system': 'anthropic',
        'gen_ai.request.model': 'claude-haiku-4-5-20251001',
        query_source: 'repl_main_thread',
        'llm_request.context': 'interaction',
        duration_ms: r.duration_ms,
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        cache_read_tokens: r.cache_read_tokens,
        cache_creation_tokens: r.cache_creation_tokens,
        request_id: r.request_id,
        'gen_ai.response.id': r.request_id,
        success: true,
        'response.has_tool_call': true,
        'ccotel.cost.usd': r.cost,
        'ccotel.message.id': r.message,
      };
    };
    const READ = 'toolu_01N0DfDE1yN3GlaDOQvtMsaw';
    const EDIT = 'toolu_01HmXakZPrdG41fMI5wJoAk5';
    expect(shape(spans)).toEqual([
      {
        name: 'claude_code.interaction',
        parent: null,
        startMs: T0,
        endMs: T0 + 6950,
        status: 'UNSET',
        attributes: {
          ...std('interaction'),
          user_prompt: '<REDACTED>',
          'ccotel.turn.label': 'In src/greet.ts change the greeting from Hello to Goodbye.',
          user_prompt_length: 58,
          'interaction.sequence': 1,
          'interaction.duration_ms': 6950,
          'ccotel.turn.end_state': 'interrupted',
          'ccotel.cost.usd': 0.009863,
        },
      },
      {
        name: 'claude_code.llm_request',
        parent: 'claude_code.interaction',
        startMs: T0,
        endMs: T0 + 2400,
        status: 'UNSET',
        attributes: llm(1),
      },
      {
        name: 'claude_code.tool',
        parent: 'claude_code.interaction',
        startMs: T0 + 2400,
        endMs: T0 + 2430,
        status: 'UNSET',
        attributes: {
          ...std('tool'),
          tool_name: 'Read',
          duration_ms: 30,
          tool_use_id: READ,
          'gen_ai.tool.call.id': READ,
          'ccotel.tool.label': 'Read: src/greet.ts',
          'ccotel.request_id': 'req_011Cr8PCrTPDCpJ9zxNrFCgA',
        },
      },
      {
        name: 'claude_code.tool.execution',
        parent: 'claude_code.tool',
        startMs: T0 + 2400,
        endMs: T0 + 2430,
        status: 'UNSET',
        attributes: {
          ...std('tool.execution'),
          duration_ms: 30,
          tool_use_id: READ,
          'gen_ai.tool.call.id': READ,
          success: true,
        },
      },
      {
        name: 'claude_code.llm_request',
        parent: 'claude_code.interaction',
        startMs: T0 + 2430,
        endMs: T0 + 3700,
        status: 'UNSET',
        attributes: llm(2),
      },
      {
        name: 'claude_code.tool',
        parent: 'claude_code.interaction',
        startMs: T0 + 3700,
        endMs: T0 + 6950,
        status: 'UNSET',
        attributes: {
          ...std('tool'),
          tool_name: 'Edit',
          duration_ms: 3250,
          tool_use_id: EDIT,
          'gen_ai.tool.call.id': EDIT,
          'ccotel.tool.label': 'Edit: src/greet.ts',
          'ccotel.request_id': 'req_011CHDvGoNFlon2InHgAeOXH',
        },
      },
      // The rejection is the answer the transcript shows; no execution follows it.
      {
        name: 'claude_code.tool.blocked_on_user',
        parent: 'claude_code.tool',
        startMs: T0 + 3700,
        endMs: T0 + 6950,
        status: 'UNSET',
        attributes: {
          ...std('tool.blocked_on_user'),
          duration_ms: 3250,
          decision: 'reject',
          source: 'user_reject',
        },
      },
    ]);
    // Each call links to the request that asked for it (ccotel's addition).
    const llmIds = spans.filter((s) => s.name === 'claude_code.llm_request').map((s) => s.spanId);
    const links = spans.filter((s) => s.name === 'claude_code.tool').map((s) => s.links[0]?.spanId);
    expect(links).toEqual(llmIds);
  });

  it('writes the events of that turn, joined to its interaction', async () => {
    const { spans, logs } = await exportOut(REJECTED, '--schema', 'claude-code');
    const root = spans[0] as DecodedSpan;
    const common = (name: string, ms: number, seq: number) => ({
      'session.id': SESSION,
      'event.name': name,
      'event.timestamp': new Date(T0 + ms).toISOString(),
      'event.sequence': seq,
      // 2.1.29 writes no promptId: the prompt's uuid stands in.
      'prompt.id': '76b39d62-888b-4010-8f90-7b5b83c3ec20',
    });
    const bodies = logs.map((l) => ({
      body: l.body,
      ms: Number(l.timeUnixNano / 1_000_000n) - T0,
    }));
    expect(bodies).toEqual([
      { body: 'claude_code.user_prompt', ms: 0 },
      { body: 'claude_code.api_request', ms: 2400 },
      { body: 'claude_code.tool_result', ms: 2430 },
      { body: 'claude_code.api_request', ms: 3700 },
      { body: 'claude_code.tool_decision', ms: 6950 },
    ]);
    const attributes = logs.map((l) => {
      const { 'log.record.uid': uid, ...rest } = l.attributes;
      expect(uid).toMatch(/^[0-9a-f]{32}$/);
      return rest;
    });
    expect(attributes).toEqual([
      {
        ...common('user_prompt', 0, 1),
        prompt_length: 58,
        prompt: '<REDACTED>',
        'message.uuid': '76b39d62-888b-4010-8f90-7b5b83c3ec20',
      },
      {
        ...common('api_request', 2400, 2),
        model: 'claude-haiku-4-5-20251001',
        cost_usd: 0.00748,
        cost_usd_micros: 7480,
        duration_ms: 2400,
        input_tokens: 10,
        output_tokens: 8,
        cache_read_tokens: 15300,
        cache_creation_tokens: 2950,
        request_id: 'req_011Cr8PCrTPDCpJ9zxNrFCgA',
        query_source: 'repl_main_thread',
      },
      {
        ...common('tool_result', 2430, 3),
        tool_name: 'Read',
        tool_use_id: 'toolu_01N0DfDE1yN3GlaDOQvtMsaw',
        success: 'true',
        duration_ms: 30,
        decision_type: 'accept',
      },
      {
        ...common('api_request', 3700, 4),
        model: 'claude-haiku-4-5-20251001',
        cost_usd: 0.002383,
        cost_usd_micros: 2383,
        duration_ms: 1270,
        input_tokens: 13,
        output_tokens: 1,
        cache_read_tokens: 18250,
        cache_creation_tokens: 270,
        request_id: 'req_011CHDvGoNFlon2InHgAeOXH',
        query_source: 'repl_main_thread',
      },
      {
        ...common('tool_decision', 6950, 5),
        tool_name: 'Edit',
        tool_use_id: 'toolu_01HmXakZPrdG41fMI5wJoAk5',
        decision: 'reject',
        source: 'user_reject',
      },
    ]);
    for (const l of logs) {
      expect(l.traceId).toBe(root.traceId);
      expect(l.spanId).toBe(root.spanId);
      expect(l.resource['telemetry.source']).toBe('ccotel');
      expect(l.resource['service.name']).toBe('claude-code');
    }
    expect(root.resource['telemetry.source']).toBe('ccotel');
  });

  it('gives an API error an ERROR request span and an api_error event', async () => {
    const { spans, logs } = await exportOut('fixtures/hand/api-error', '--schema', 'claude-code');
    const failed = spans.filter((s) => s.status.code === 'ERROR');
    expect(failed.map((s) => [s.name, s.attributes.success, s.attributes.error])).toEqual([
      ['claude_code.llm_request', false, 'rate_limit'],
    ]);
    const errors = logs.filter((l) => l.body === 'claude_code.api_error');
    expect(errors.map((l) => [l.attributes.error, l.attributes.model])).toEqual([
      ['rate_limit', '<synthetic>'],
    ]);
  });
});

describe('the resource of each session, as Claude Code writes it', () => {
  /** fixtures/hand/rejected-tool, as a Claude Desktop session of another id and version. */
  function desktopCopy(): string {
    const project = join(dir, 'projects', '-home-dev-desktop');
    mkdirSync(project, { recursive: true });
    const lines = readFileSync(join(REJECTED, `${SESSION}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const o = JSON.parse(l.replaceAll(SESSION, DESKTOP)) as Record<string, unknown>;
        if (o.type === 'user' || o.type === 'assistant') {
          o.entrypoint = 'claude-desktop';
          o.version = '2.1.230';
          if (typeof o.uuid === 'string') o.uuid = `d${o.uuid.slice(1)}`;
          if (typeof o.parentUuid === 'string') o.parentUuid = `d${o.parentUuid.slice(1)}`;
        }
        return JSON.stringify(o);
      });
    writeFileSync(join(project, `${DESKTOP}.jsonl`), `${lines.join('\n')}\n`);
    return project;
  }
  const DESKTOP = 'ddfd17db-a1f9-46ec-ab1b-f48104846966';

  it('names a session Claude Desktop started claude-code-desktop', async () => {
    const { spans, logs, lines } = await exportOut(desktopCopy(), '--schema', 'claude-code');
    const cli = await exportOut(REJECTED, '--schema', 'claude-code');
    const names = (xs: { resource: Record<string, unknown> }[]) =>
      new Set(xs.map((x) => x.resource['service.name']));
    expect(names([...spans, ...logs])).toEqual(new Set(['claude-code-desktop']));
    expect(names([...cli.spans, ...cli.logs])).toEqual(new Set(['claude-code']));
    expect(lines.length).toBe(2);
    const named = await exportOut(REJECTED, '--schema', 'claude-code', '--service-name', 'team-cc');
    expect(new Set(named.spans.map((s) => s.resource['service.name']))).toEqual(
      new Set(['team-cc']),
    );
  });

  it('splits a batch where the sessions change, and keeps GenAI resources as they were', async () => {
    desktopCopy();
    mkdirSync(join(dir, 'projects', '-home-dev-cli'), { recursive: true });
    copyFileSync(
      join(REJECTED, `${SESSION}.jsonl`),
      join(dir, 'projects', '-home-dev-cli', `${SESSION}.jsonl`),
    );
    const both = await exportOut(join(dir, 'projects'), '--schema', 'claude-code');
    // One span line and one event line per session.
    expect(both.lines.length).toBe(4);
    const perLine = both.lines
      .filter((l) => l.startsWith('{"resourceSpans"'))
      .map((l) => new Set(decodeJsonTraces(l).map((s) => s.resource['service.name'])));
    expect(perLine.map((v) => [...v]).sort()).toEqual([['claude-code'], ['claude-code-desktop']]);
    const genai = await exportOut(join(dir, 'projects'));
    expect(genai.lines.length).toBe(1);
    expect(new Set(genai.spans.map((s) => s.resource['service.name']))).toEqual(
      new Set(['claude-code']),
    );
  });
});

describe('claude-code goldens (reviewed by hand; regenerate with -u)', () => {
  it.each([
    ['bundled-sample', SAMPLE],
    ['api-error', 'fixtures/hand/api-error'],
    ['fork-subtask', 'fixtures/hand/v22x-fork-subtask'],
    ['missing-transcript', 'fixtures/hand/v22x-missing-transcript'],
    ['sub-agents-meta', 'fixtures/hand/v21-subagents-meta'],
    ['workflow', 'fixtures/hand/v22x-workflow'],
    ['team', 'fixtures/hand/v22x-team'],
  ])('%s', async (name, target) => {
    const { spans, logs } = await exportOut(target, '--schema', 'claude-code');
    const events = logs.map((l) => ({
      body: l.body,
      timeUnixNano: String(l.timeUnixNano),
      attributes: l.attributes,
    }));
    const golden = { spans: shape(spans), events };
    await expect(`${JSON.stringify(golden, null, 2)}\n`).toMatchFileSnapshot(
      `../../fixtures/golden/claude-code/${name}.json`,
    );
  });
});

describe('export --schema claude-code to a real OTLP receiver', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.stop());

  const send = (...extra: string[]) =>
    runCcotel([
      'export',
      SAMPLE,
      '--endpoint',
      receiver.url,
      '--state-dir',
      dir,
      '--quiet',
      ...extra,
    ]);

  it.each(['http/protobuf', 'http/json'])('sends over %s what --out writes', async (protocol) => {
    const run = await send('--schema', 'claude-code', '--protocol', protocol);
    expect(run.code, run.stderr).toBe(0);
    const out = await exportOut(SAMPLE, '--schema', 'claude-code', '--state-dir', join(dir, 'o'));
    expect(receiver.spans()).toEqual(out.spans);
    expect(receiver.logs()).toEqual(out.logs);
    expect(out.logs.length).toBeGreaterThan(10);
  });

  it('sends nothing again on a re-run, and everything again under the other schema', async () => {
    expect((await send('--schema', 'claude-code')).code).toBe(0);
    const first = { spans: receiver.spans().length, logs: receiver.logs().length };
    expect((await send('--schema', 'claude-code')).code).toBe(0);
    expect({ spans: receiver.spans().length, logs: receiver.logs().length }).toEqual(first);
    expect((await send()).code).toBe(0);
    expect(receiver.logs().length).toBe(first.logs);
    expect(receiver.spans().length).toBeGreaterThan(first.spans);
  });

  it('fails, and keeps the turns unrecorded, when the collector rejects events', async () => {
    receiver.setLogsMode({ rejectRecords: 1, message: 'log quota' });
    const run = await send('--schema', 'claude-code');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/rejected 1 events \(partial success: log quota\)/);
    receiver.setLogsMode('accept');
    const before = receiver.logs().length;
    const again = await send('--schema', 'claude-code');
    expect(again.code, again.stderr).toBe(0);
    // Every event of the unrecorded turns is sent again, the one lost among them.
    const out = await exportOut(SAMPLE, '--schema', 'claude-code', '--state-dir', join(dir, 'o'));
    const uids = new Set(
      receiver
        .logs()
        .slice(before)
        .map((l) => l.attributes['log.record.uid']),
    );
    for (const l of out.logs) expect(uids.has(l.attributes['log.record.uid'])).toBe(true);
  });

  it('stops with a one-line error when the logs endpoint does not answer', async () => {
    receiver.setLogsMode({ status: 400 });
    const run = await send('--schema', 'claude-code');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(
      /could not deliver events to http:\/\/127\.0\.0\.1:\d+\/v1\/logs/,
    );
  });
});

describe('--schema genai and the settings', () => {
  it.each(['fixtures/hand', 'fixtures/real', 'fixtures/real-layout'])(
    '--schema genai writes what no flag writes, byte for byte: %s',
    async (target) => {
      const plain = await exportOut(target);
      const genai = await exportOut(target, '--schema', 'genai');
      expect(readFileSync(genai.out)).toEqual(readFileSync(plain.out));
      expect(plain.logs).toEqual([]);
    },
  );

  it('config check shows the schema and where it came from', async () => {
    const byFlag = await runCcotel(['config', 'check', '--schema', 'claude-code', '--json']);
    const flagJson = JSON.parse(byFlag.stdout) as { settings: Record<string, unknown> };
    expect(flagJson.settings.schema).toEqual({ value: 'claude-code', source: 'flag' });
    const byEnv = await runCcotel(['config', 'check'], { CCOTEL_SCHEMA: 'claude-code' });
    expect(byEnv.stdout).toMatch(/^schema\s+claude-code\s+\[env\]$/m);
    const bad = await runCcotel(['export', SAMPLE, '--dry-run', '--schema', 'native']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('ccotel: --schema: must be one of genai, claude-code');
  });

  it('--until backfills only the turns that started before it; a later run sends the rest', async () => {
    // fixtures/hand/api-error: turns at 15:30:00 and 15:31:10.
    const receiver = await startOtlpReceiver();
    try {
      const send = (...extra: string[]) =>
        runCcotel([
          'export',
          'fixtures/hand/api-error',
          '--endpoint',
          receiver.url,
          '--state-dir',
          dir,
          ...extra,
        ]);
      const first = await send('--until', '2026-02-20T15:31:00Z', '--schema', 'claude-code');
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('1 turns');
      const roots = () => receiver.spans().filter((s) => s.parentSpanId === '').length;
      expect(roots()).toBe(1);
      const rest = await send('--schema', 'claude-code');
      expect(rest.code, rest.stderr).toBe(0);
      expect(rest.stdout).toContain('2 turns (1 unchanged, skipped)');
      expect(roots()).toBe(2);
      const bad = await send('--since', '2026-02-21', '--until', '2026-02-20');
      expect([bad.code, bad.stderr.trim()]).toEqual([
        2,
        'ccotel: --until: must be later than --since',
      ]);
    } finally {
      await receiver.stop();
    }
  });

  it('counts events in a dry run', async () => {
    const run = await runCcotel(['export', SAMPLE, '--dry-run', '--schema', 'claude-code']);
    expect(run.code, run.stderr).toBe(0);
    const out = await exportOut(SAMPLE, '--schema', 'claude-code');
    expect(run.stdout).toContain(
      `${out.spans.length} spans and ${out.logs.length} events would be sent`,
    );
  });
});
