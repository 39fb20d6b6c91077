// Claude Code's schema (--schema claude-code) on every fixture session: each
// span's name, keys and tree are the ones Claude Code's Monitoring page
// documents for its beta tracing, plus ccotel.* keys. The tables below are
// that page's "Span attributes" tables (code.claude.com/docs/en/monitoring-usage,
// "Traces (beta)", as of its 2026-08-22 snapshot; docs/native-telemetry.md),
// less what a transcript cannot know (ttft_ms, attempt, client_request_id,
// status_code, result_tokens, hook spans), each left out on purpose.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable } from '../../../../../src/adapters/config/price-file.js';
import type { SessionFiles } from '../../../../../src/adapters/files/session-files.js';
import type { PriceTable } from '../../../../../src/core/cost/pricing.js';
import type { SpanData, SpanOptions } from '../../../../../src/core/spans/data.js';
import { sessionSpans } from '../../../../support/whole-session.js';
import { fixtureSessions } from '../../../../support/fixture-sessions.js';

const OPTIONS: SpanOptions = { content: 'labels', maxAttributeBytes: 2048, schema: 'claude-code' };

/** "Every span carries the standard attributes plus a span.type attribute matching its name." */
const STANDARD = ['session.id', 'span.type'];

/** The page's table for each span, keys a transcript can give. */
const DOCUMENTED: Record<string, string[]> = {
  // Table "claude_code.interaction".
  'claude_code.interaction': [
    'user_prompt',
    'user_prompt_length',
    'interaction.sequence',
    'interaction.duration_ms',
  ],
  // Table "claude_code.llm_request".
  'claude_code.llm_request': [
    'model',
    'gen_ai.system',
    'gen_ai.request.model',
    'query_source',
    'agent_id',
    'parent_agent_id',
    'workflow.run_id',
    'workflow.name',
    'speed',
    'llm_request.context',
    'duration_ms',
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_creation_tokens',
    'request_id',
    'gen_ai.response.id',
    'success',
    'error',
    'response.has_tool_call',
    'stop_reason',
    'gen_ai.response.finish_reasons',
  ],
  // Table "claude_code.tool" (file_path, full_command, skill_name, subagent_type: full content only).
  'claude_code.tool': [
    'tool_name',
    'duration_ms',
    'agent_id',
    'parent_agent_id',
    'workflow.run_id',
    'workflow.name',
    'tool_use_id',
    'gen_ai.tool.call.id',
    'file_path',
    'full_command',
    'skill_name',
    'subagent_type',
  ],
  // Table "claude_code.tool.blocked_on_user".
  'claude_code.tool.blocked_on_user': ['duration_ms', 'decision', 'source'],
  // Table "claude_code.tool.execution".
  'claude_code.tool.execution': [
    'duration_ms',
    'tool_use_id',
    'gen_ai.tool.call.id',
    'success',
    'error',
  ],
};

/** Keys every span of the name carries. */
const REQUIRED: Record<string, string[]> = {
  'claude_code.interaction': ['interaction.sequence', 'interaction.duration_ms'],
  'claude_code.llm_request': [
    'model',
    'query_source',
    'llm_request.context',
    'duration_ms',
    'success',
  ],
  'claude_code.tool': ['tool_name', 'duration_ms', 'tool_use_id', 'gen_ai.tool.call.id'],
  'claude_code.tool.blocked_on_user': ['duration_ms', 'decision', 'source'],
  'claude_code.tool.execution': ['duration_ms', 'tool_use_id'],
};

/** The page: "set OpenTelemetry status ERROR when they record a failure; the other spans always end with status UNSET". */
const MAY_FAIL = new Set(['claude_code.llm_request', 'claude_code.tool.execution']);

const INTEGER_KEYS = [
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'interaction.sequence',
  'interaction.duration_ms',
  'user_prompt_length',
];

let sessions: SessionFiles[] = [];
let prices: PriceTable;
const all: { file: string; spans: SpanData[] }[] = [];

beforeAll(async () => {
  prices = await loadPriceTable();
  sessions = await fixtureSessions();
  for (const files of sessions) {
    const { turns } = await sessionSpans(files, prices, OPTIONS);
    for (const t of turns) all.push({ file: files.mainFile, spans: t.spans });
  }
});

describe('claude-code spans on every fixture', () => {
  it('builds some turns', () => {
    expect(all.length).toBeGreaterThan(40);
  });

  it('names each span as the hierarchy does, with span.type its name without the prefix', () => {
    for (const { spans } of all)
      for (const s of spans) {
        expect(Object.keys(DOCUMENTED)).toContain(s.name);
        expect(s.attributes['span.type']).toBe(s.name.slice('claude_code.'.length));
      }
  });

  it('carries only documented keys, the standard ones and ccotel.* ones', () => {
    for (const { file, spans } of all)
      for (const s of spans)
        for (const key of Object.keys(s.attributes))
          if (!key.startsWith('ccotel.'))
            expect(
              [...STANDARD, ...(DOCUMENTED[s.name] ?? [])],
              `${file}: ${s.name} ${key}`,
            ).toContain(key);
  });

  it('carries the required keys, integers as integers and success as a boolean', () => {
    for (const { spans } of all)
      for (const s of spans) {
        for (const key of REQUIRED[s.name] ?? []) expect(s.attributes, s.name).toHaveProperty(key);
        for (const key of INTEGER_KEYS)
          if (key in s.attributes) expect(Number.isInteger(s.attributes[key]), key).toBe(true);
        if ('success' in s.attributes) expect(typeof s.attributes.success).toBe('boolean');
      }
  });

  it('roots each trace at one interaction; calls and requests below it, their parts below calls', () => {
    for (const { spans } of all) {
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const roots = spans.filter((s) => s.parentSpanId === null);
      expect(roots.map((s) => s.name)).toEqual(['claude_code.interaction']);
      for (const s of spans) {
        if (s.parentSpanId === null) continue;
        const parent = byId.get(s.parentSpanId);
        expect(parent, `${s.name} has its parent in the trace`).toBeDefined();
        if (s.name.startsWith('claude_code.tool.')) expect(parent?.name).toBe('claude_code.tool');
        else expect(['claude_code.interaction', 'claude_code.tool']).toContain(parent?.name);
        // A sub-agent's work hangs under the call that spawned it (llm_request.context "tool").
        if (s.attributes['llm_request.context'] === 'tool')
          expect(parent?.name).toBe('claude_code.tool');
      }
    }
  });

  it('sets ERROR only on requests and executions that failed', () => {
    for (const { spans } of all)
      for (const s of spans) {
        if (!MAY_FAIL.has(s.name)) expect(s.status.code, s.name).toBe('UNSET');
        if (s.status.code === 'ERROR') expect(s.attributes.success).toBe(false);
      }
  });

  it('has a blocked_on_user span only for a rejected call, and no execution for it', () => {
    const blocked = all.flatMap(({ spans }) =>
      spans.filter((s) => s.name === 'claude_code.tool.blocked_on_user'),
    );
    expect(blocked.length).toBeGreaterThan(0);
    for (const { spans } of all)
      for (const b of spans.filter((s) => s.name === 'claude_code.tool.blocked_on_user')) {
        expect(b.attributes.decision).toBe('reject');
        const siblings = spans.filter((s) => s.parentSpanId === b.parentSpanId);
        expect(siblings.map((s) => s.name)).toEqual(['claude_code.tool.blocked_on_user']);
      }
  });

  it('puts a sub-agent request under its spawning call with the agent id', () => {
    const nested = all.flatMap(({ spans }) =>
      spans.filter((s) => s.attributes['llm_request.context'] === 'tool'),
    );
    expect(nested.length).toBeGreaterThan(0);
    for (const s of nested) {
      expect(typeof s.attributes.agent_id).toBe('string');
      expect(s.attributes.query_source).not.toBe('repl_main_thread');
    }
  });

  it("marks a workflow agent's requests and calls with the run, under the Workflow call", () => {
    const marked = all.flatMap(({ spans }) => {
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      return spans
        .filter((s) => s.attributes['workflow.run_id'] !== undefined)
        .map((s) => ({ s, parent: byId.get(s.parentSpanId ?? '') }));
    });
    expect(marked.length).toBeGreaterThan(0);
    for (const { s, parent } of marked) {
      expect(String(s.attributes['workflow.run_id'])).toMatch(/^wf_/);
      expect(typeof s.attributes.agent_id).toBe('string');
      expect(parent?.name).toBe('claude_code.tool');
    }
  });

  it('gives trace and span ids of their own, apart from the GenAI ones', async () => {
    const files = sessions[0] as SessionFiles;
    const genai = await sessionSpans(files, prices, { ...OPTIONS, schema: 'genai' });
    const native = await sessionSpans(files, prices, OPTIONS);
    const ids = new Set(genai.turns.flatMap((t) => t.spans.map((s) => s.traceId)));
    for (const t of native.turns) for (const s of t.spans) expect(ids.has(s.traceId)).toBe(false);
  });
});
