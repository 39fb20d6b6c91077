// Claude Code 2.1.2xx shapes (issue 12), on the hand fixtures fixtures/hand/v22x-*. Every figure
// below is computed by hand from the fixture lines (see fixtures/hand/README.md, cases 18–19).
import { describe, expect, it } from 'vitest';
import { runCcotel } from '../support/run-cli.js';
import { findSessions } from '../../src/adapters/session-files.js';
import { loadPriceTable } from '../../src/adapters/price-file.js';
import { sessionSpans } from '../../src/app/session-spans.js';
import type { SpanData } from '../../src/core/span-data.js';
import type { WaterfallRow } from '../../src/core/waterfall-row.js';

const FORK_CASE = 'fixtures/hand/v22x-fork-subtask/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl';
const FORK_ID = 'achangelog-9c4d1e7b2a683f2a';
const LOOSE_ID = 'a5b6c7d8e9f0a1b2c';
const at = (hms: string): number => Date.parse(`2026-11-20T${hms}Z`);

async function showJson(path: string): Promise<Record<string, unknown> & { rows: WaterfallRow[] }> {
  const run = await runCcotel(['show', path, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown> & { rows: WaterfallRow[] };
}

async function spansOf(path: string): Promise<SpanData[]> {
  const [files] = await findSessions(path);
  if (files === undefined) throw new Error(`no session at ${path}`);
  const spans = await sessionSpans(files, await loadPriceTable(), {
    content: 'labels',
    maxAttributeBytes: 2048,
  });
  return spans.turns.flatMap((t) => t.spans);
}

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
    expect(json.warnings).toEqual([
      {
        file: `fixtures/hand/v22x-fork-subtask/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c/subagents/agent-${LOOSE_ID}.jsonl`,
        line: 1,
        reason: `sub-agent ${LOOSE_ID} has no spawning call: shown under the turn of its first line`,
      },
    ]);
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
