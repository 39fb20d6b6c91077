// Claude Code 2.1.2xx shapes (issue 12), on the hand fixtures fixtures/hand/v22x-*. Every figure
// below is computed by hand from the fixture lines (see fixtures/hand/README.md, cases 18–19).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCcotel } from '../support/run-cli.js';
import { findSessions } from '../../src/adapters/files/session-files.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { sessionSpans } from '../support/whole-session.js';
import { showJson as showJsonOf, spansOf } from '../support/fixture-output.js';
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';

const FORK_CASE = 'fixtures/hand/v22x-fork-subtask/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl';
const FORK_ID = 'achangelog-9c4d1e7b2a683f2a';
const LOOSE_ID = 'a5b6c7d8e9f0a1b2c';
const at = (hms: string): number => Date.parse(`2026-11-20T${hms}Z`);

const showJson = (path: string): Promise<Record<string, unknown> & { rows: WaterfallRow[] }> =>
  showJsonOf<Record<string, unknown> & { rows: WaterfallRow[] }>(path);

describe('fork sub-agents (/subtask, 2.1.220+)', () => {
  it('the fork is a row of its own, from its "⑂ forked" line to its last <task-notification>, holding its calls', async () => {
    const { rows } = await showJson(FORK_CASE);
    const fork = rows.find((r) => r.id === FORK_ID);
    expect(fork).toBeDefined();
    expect(fork?.toolName).toBe('Fork');
    expect(fork?.label).toBe('Fork: changelog');
    expect(fork?.startTime).toBe(at('10:00:20.050'));
    expect(fork?.endTime).toBe(at('10:03:00.000'));
    // 4+0+42300 + 4+42300+160 + 4+42510+40; 90+50+30
    expect(fork?.tokens).toEqual({ input: 42304 + 42464 + 42554, output: 170 });
    expect(
      fork?.children.map((c) => [c.id, c.parentAgentId, c.inputTokens, c.outputTokens]),
    ).toEqual([['toolu_01FkGrep3mKn4BvCxZaSdFgH', FORK_ID, 42304, 90]]);
    // claude-opus-5 has a 1M window: 42304 / 1,000,000
    expect(fork?.children[0]?.contextFillPercent).toBe(4.23);
  });

  it('an agent file no call spawned is shown under the turn of its first line, with a warning', async () => {
    const json = await showJson(FORK_CASE);
    const loose = json.rows.find((r) => r.id === LOOSE_ID);
    expect(loose?.children.map((c) => c.id)).toEqual(['toolu_01FkBash7qWe8RtYuIoPaSdF']);
    expect([loose?.startTime, loose?.endTime]).toEqual([at('10:02:01.000'), at('10:02:02.400')]);
    expect(json.warnings).toContainEqual({
      file: `fixtures/hand/v22x-fork-subtask/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c/subagents/agent-${LOOSE_ID}.jsonl`,
      line: 1,
      reason: `sub-agent ${LOOSE_ID} has no spawning call: shown under the turn of its first line`,
    });
  });

  it('exports every call of every agent file: the fork under the turn it was forked in, typed fork, named', async () => {
    const spans = await spansOf(FORK_CASE);
    const roots = spans.filter((s) => s.parentSpanId === null);
    expect(roots).toHaveLength(2);
    const forkSpan = spans.find((s) => s.attributes['claude_code.agent.id'] === FORK_ID);
    expect(forkSpan?.name).toBe('invoke_agent fork');
    expect(forkSpan?.attributes['claude_code.agent.type']).toBe('fork');
    expect(forkSpan?.attributes['claude_code.agent.name']).toBe('changelog');
    expect(forkSpan?.traceId).toBe(roots[0]?.traceId);
    expect([forkSpan?.startMs, forkSpan?.endMs]).toEqual([at('10:00:20.050'), at('10:03:00.000')]);
    const grep = spans.find(
      (s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_01FkGrep3mKn4BvCxZaSdFgH',
    );
    expect(grep?.parentSpanId).toBe(forkSpan?.spanId);
    expect(grep?.attributes['claude_code.agent.type']).toBe('fork');
    const bash = spans.find(
      (s) => s.attributes['gen_ai.tool.call.id'] === 'toolu_01FkBash7qWe8RtYuIoPaSdF',
    );
    expect(bash?.traceId).toBe(roots[1]?.traceId);
    // Every tool_use of the three files is a span.
    const calls = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(calls).toHaveLength(3);
  });
});

const MISSING_CASE =
  'fixtures/hand/v22x-missing-transcript/3e9d8c7b-6a5f-4e4d-8c3b-2a1f0e9d8c7b.jsonl';

describe('a sub-agent whose transcript is missing', () => {
  it('its row carries the reported run and a warning says how many calls are not shown', async () => {
    const json = await showJson(MISSING_CASE);
    const row = json.rows[0];
    expect(row?.transcriptMissing).toBe(true);
    expect(row?.tokens).toEqual({ input: 0, output: 0 });
    // toolUseResult: totalTokens 17294 = 3 + 1200 + 15800 + 291 (its last call), 18 calls, 41250 ms
    expect(row?.reported).toEqual({
      agentId: 'a1f2e3d4c5b6a7980',
      totalTokens: 17294,
      toolUseCount: 18,
      durationMs: 41250,
      lastCallInputTokens: 3 + 1200 + 15800,
      lastCallOutputTokens: 291,
    });
    expect(json.warnings).toEqual([
      {
        file: MISSING_CASE,
        line: 3,
        reason:
          'transcript of sub-agent a1f2e3d4c5b6a7980 is missing: 18 of its calls are not shown',
      },
    ]);
  });

  it('its execute_tool span carries the reported run under claude_code.agent.reported.*', async () => {
    const spans = await spansOf(MISSING_CASE);
    const call = spans.find((s) => s.name === 'execute_tool Agent');
    expect(call?.attributes).toMatchObject({
      'claude_code.agent.transcript_missing': true,
      'claude_code.agent.id': 'a1f2e3d4c5b6a7980',
      'claude_code.agent.reported.total_tokens': 17294,
      'claude_code.agent.reported.tool_use_count': 18,
      'claude_code.agent.reported.duration_ms': 41250,
      'claude_code.agent.reported.last_call.input_tokens': 17003,
      'claude_code.agent.reported.last_call.output_tokens': 291,
    });
  });
});

describe('usage in full', () => {
  it('chat spans carry the 5m/1h split, thinking tokens, web requests and speed; fast mode without published cache rates has no cost', async () => {
    const spans = await spansOf(MISSING_CASE);
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    const [fast, standard] = chats;
    expect(fast?.attributes).toMatchObject({
      'claude_code.usage.cache_write_5m.input_tokens': 0,
      'claude_code.usage.cache_write_1h.input_tokens': 3000,
      'claude_code.usage.web_search_requests': 2,
      'claude_code.usage.web_fetch_requests': 1,
      'claude_code.usage.speed': 'fast',
    });
    expect(fast?.attributes['claude_code.cost.usd']).toBeUndefined();
    expect(standard?.attributes).toMatchObject({
      'claude_code.usage.cache_write_5m.input_tokens': 400,
      'claude_code.usage.cache_write_1h.input_tokens': 0,
      'claude_code.usage.thinking_tokens': 30,
      'claude_code.usage.speed': 'standard',
    });
    // claude-opus-5-5 (models/opus-5-5/overview): $4 in, $0.20 read, $5 5m write, $20 out
    expect(standard?.attributes['claude_code.cost.usd']).toBeCloseTo(
      (4 * 4 + 23000 * 0.2 + 400 * 5 + 80 * 20) / 1e6,
      9,
    );
  });

  it('show names the fast-mode response it could not price', async () => {
    const run = await runCcotel(['show', MISSING_CASE, '--json']);
    expect(run.stderr).toContain('no price for model claude-opus-5-5 in fast mode');
  });
});

describe('turns, their origin and the session header', () => {
  it('turn roots carry prompt.id, origin, permission mode and the session title and PR links; a peer message opens a turn with its sender', async () => {
    const roots = (await spansOf(FORK_CASE)).filter((s) => s.parentSpanId === null);
    expect(roots.map((r) => r.attributes['prompt.id'])).toEqual([
      '4d1f2e3a-5b6c-4d7e-8f9a-0b1c2d3e4f01',
      '4d1f2e3a-5b6c-4d7e-8f9a-0b1c2d3e4f03',
    ]);
    expect(roots.map((r) => r.attributes['claude_code.turn.origin'])).toEqual(['human', 'peer']);
    expect(roots[1]?.attributes['claude_code.turn.peer.name']).toBe('release-bot');
    expect(roots[0]?.attributes['claude_code.turn.peer.name']).toBeUndefined();
    for (const root of roots) {
      expect(root.attributes).toMatchObject({
        'claude_code.permission_mode': 'acceptEdits',
        'claude_code.session.title': 'Docs review',
      });
    }
    // A turn carries the session info known by its end: the PR link is written during turn 2.
    expect(roots[0]?.attributes['claude_code.session.pr_urls']).toBeUndefined();
    expect(roots[1]?.attributes['claude_code.session.pr_urls']).toEqual([
      'https://github.com/example/docs-site/pull/42',
    ]);
  });

  it('in content mode none the title, sender and PR links stay home; prompt.id and origin go', async () => {
    const [files] = await findSessions(FORK_CASE);
    if (files === undefined) throw new Error('no session');
    const spans = await sessionSpans(files, await loadPriceTable(), {
      content: 'none',
      maxAttributeBytes: 2048,
    });
    const roots = spans.turns.flatMap((t) => t.spans).filter((s) => s.parentSpanId === null);
    expect(roots[1]?.attributes['claude_code.turn.origin']).toBe('peer');
    expect(roots[1]?.attributes['prompt.id']).toBe('4d1f2e3a-5b6c-4d7e-8f9a-0b1c2d3e4f03');
    for (const key of [
      'claude_code.turn.peer.name',
      'claude_code.session.title',
      'claude_code.session.pr_urls',
    ])
      expect(roots[1]?.attributes[key], key).toBeUndefined();
  });

  it('show --json has the session header (custom title over ai-title) and the unknown record types with one warning each', async () => {
    const json = await showJson(FORK_CASE);
    // The header and the unknown types follow the rows: show --json writes rows as it reads.
    expect(Object.keys(json)).toEqual([
      'sessionId',
      'rows',
      'warnings',
      'session',
      'unknownRecordTypes',
    ]);
    expect(json.session).toEqual({
      title: 'Docs review',
      customTitle: 'Docs review',
      aiTitle: 'Reviewing docs and changelog',
      agentName: null,
      permissionMode: 'acceptEdits',
      mode: null,
      prLinks: [
        {
          number: 42,
          url: 'https://github.com/example/docs-site/pull/42',
          repository: 'example/docs-site',
        },
      ],
    });
    expect(json.unknownRecordTypes).toEqual({ 'stardust-sync': 2 });
    const drift = (json.warnings as { line: number; reason: string }[]).filter((w) =>
      w.reason.includes('unknown record type'),
    );
    expect(drift).toEqual([
      {
        file: FORK_CASE,
        line: 19,
        reason: 'unknown record type "stardust-sync": 2 lines ignored (first here)',
      },
    ]);
  });

  it('a session without name or setting records keeps the three-key JSON', async () => {
    expect(Object.keys(await showJson(MISSING_CASE))).toEqual(['sessionId', 'rows', 'warnings']);
  });
});

describe('format drift in the export summary', () => {
  it('names each unknown record type once, with its line count', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccotel-drift-'));
    try {
      const run = await runCcotel(['export', 'fixtures/hand/v22x-fork-subtask', '--dry-run'], {
        XDG_STATE_HOME: dir,
      });
      expect(run.code, run.stderr).toBe(0);
      const drift = run.stderr.split('\n').filter((l) => l.includes('unknown record type'));
      expect(drift).toEqual([
        `warning: ${FORK_CASE}:19: unknown record type "stardust-sync": 2 lines ignored (first here)`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
