// Hand-built waterfall views for the renderer tests: small enough to reason
// about line by line, and covering every shape the renderers must draw.
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';
import type { WaterfallView } from '../../src/app/show/render/waterfall-view.js';

/** 2025-01-01T10:00:00Z: all sample times are offsets from it. */
export const T0 = Date.UTC(2025, 0, 1, 10, 0, 0);

/** A label that must show up as text, never run or create elements. */
export const HOSTILE_LABEL =
  'Bash: echo <script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

interface RowSpec {
  id: string;
  label: string;
  from: number;
  /** Seconds after T0; null while running. */
  to: number | null;
  status?: WaterfallRow['status'];
  type?: WaterfallRow['type'];
  parent?: string | null;
  tokens?: [number, number];
  agentTokens?: [number, number];
  ctx?: number;
  input?: Record<string, unknown>;
  output?: string | null;
  children?: WaterfallRow[];
}

export function row(spec: RowSpec): WaterfallRow {
  const start = T0 + spec.from * 1000;
  const end = spec.to === null ? null : T0 + spec.to * 1000;
  const [inputTokens, outputTokens] = spec.tokens ?? [1000, 100];
  const base: WaterfallRow = {
    id: spec.id,
    type: spec.type ?? 'tool',
    toolName: spec.label.split(':')[0] ?? spec.label,
    label: spec.label,
    startTime: start,
    endTime: end,
    duration: end === null ? null : end - start,
    status: spec.status ?? (end === null ? 'running' : 'success'),
    parentAgentId: spec.parent ?? null,
    input: spec.input ?? { command: spec.label },
    output: spec.output === undefined ? (end === null ? null : 'ok') : spec.output,
    inputTokens,
    outputTokens,
    contextFillPercent: spec.ctx ?? 10,
    children: spec.children ?? [],
  };
  if (spec.agentTokens) base.tokens = { input: spec.agentTokens[0], output: spec.agentTokens[1] };
  return base;
}

/**
 * Two turns. Turn 1: a Read, an agent (a Grep, a failing Bash, a nested agent
 * with one Read), an Edit. Turn 2, still open: a running Bash whose label is
 * hostile HTML.
 */
export function sampleView(): WaterfallView {
  const nested = row({
    id: 'agent-2',
    type: 'agent',
    label: 'Task: check package scripts',
    from: 21,
    to: 35,
    parent: 'agent-1',
    tokens: [30_000, 200],
    agentTokens: [9_500, 640],
    ctx: 15,
    children: [
      row({ id: 'a2-read', label: 'Read: package.json', from: 22, to: 22.3, parent: 'agent-2' }),
    ],
  });
  const agent = row({
    id: 'agent-1',
    type: 'agent',
    label: 'Task: explore the test suite',
    from: 2,
    to: 40,
    tokens: [24_000, 310],
    agentTokens: [48_200, 2_100],
    ctx: 12,
    children: [
      row({ id: 'a1-grep', label: 'Grep: describe\\(', from: 3, to: 3.4, parent: 'agent-1' }),
      row({
        id: 'a1-bash',
        label: 'Bash: npm test',
        from: 5,
        to: 20,
        status: 'error',
        parent: 'agent-1',
        output: 'FAIL test/app.test.ts\n1 failing',
      }),
      nested,
    ],
  });
  const rows = [
    row({
      id: 'read-1',
      label: 'Read: src/app.ts',
      from: 0.5,
      to: 1.2,
      tokens: [12_000, 150],
      ctx: 6,
    }),
    agent,
    row({
      id: 'edit-1',
      label: 'Edit: src/app.ts',
      from: 45,
      to: 46,
      tokens: [26_000, 900],
      ctx: 13,
    }),
    row({
      id: 'bash-run',
      label: HOSTILE_LABEL,
      from: 70,
      to: null,
      tokens: [180_000, 40],
      ctx: 91,
      input: { command: 'echo "</script><!-- <script>window.__xss=3</script>"' },
    }),
  ];
  return {
    sessionId: 'sess-1234',
    title: 'Fix the failing tests',
    rows,
    turns: [
      {
        index: 1,
        label: 'fix the failing tests',
        startTime: T0,
        endTime: T0 + 60_000,
        endState: 'completed',
        inputTokens: 140_500,
        outputTokens: 4_300,
        costUsd: 0.4213,
        rowIds: ['read-1', 'agent-1', 'edit-1'],
      },
      {
        index: 2,
        label: 'now run it <b>again</b>',
        startTime: T0 + 68_000,
        endTime: T0 + 80_000,
        endState: 'open',
        inputTokens: 180_000,
        outputTokens: 40,
        costUsd: null,
        rowIds: ['bash-run'],
      },
    ],
    totals: { inputTokens: 320_500, outputTokens: 4_340, costUsd: null },
    warnings: [
      { file: 'session.jsonl', line: 12, reason: 'unparseable JSON' },
      { file: 'session.jsonl', line: 40, reason: 'tool_result without tool_use' },
      { file: 'agent-1.jsonl', line: 3, reason: 'unknown record type' },
      { file: 'agent-1.jsonl', line: 9, reason: 'unknown record type' },
    ],
  };
}
