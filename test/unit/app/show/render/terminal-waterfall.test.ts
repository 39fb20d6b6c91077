import { describe, expect, it } from 'vitest';
import { renderTerminalWaterfall } from '../../../../../src/app/show/render/terminal-waterfall.js';
import {
  formatCost,
  formatDuration,
  formatTokens,
  type WaterfallView,
} from '../../../../../src/app/show/render/waterfall-view.js';
import { T0, row, sampleView } from '../../../../support/waterfall-views.js';
import { displayWidth } from '../../../../../src/app/show/render/text-width.js';

/** One turn: a Read, an agent with a Grep inside, a failed Bash. */
function smallView(): WaterfallView {
  return {
    sessionId: 'small',
    title: 'Small session',
    rows: [
      row({ id: 'r1', label: 'Read: README.md', from: 0, to: 2, tokens: [3_000, 50], ctx: 2 }),
      row({
        id: 'ag',
        type: 'agent',
        label: 'Task: look around',
        from: 2,
        to: 8,
        agentTokens: [15_000, 700],
        ctx: 4,
        children: [row({ id: 'g1', label: 'Grep: TODO', from: 3, to: 4, parent: 'ag' })],
      }),
      row({ id: 'b1', label: 'Bash: make', from: 8, to: 10, status: 'error', ctx: 80 }),
    ],
    turns: [
      {
        index: 1,
        label: 'look at the repo',
        startTime: T0,
        endTime: T0 + 10_000,
        endState: 'completed',
        inputTokens: 19_000,
        outputTokens: 850,
        costUsd: 0.05,
        rowIds: ['r1', 'ag', 'b1'],
      },
    ],
    totals: { inputTokens: 19_000, outputTokens: 850, costUsd: 0.05 },
    warnings: [],
  };
}

const SMALL_80 = `Small session
session small · 1 turn · 4 calls · 10s wall · from 10:00 UTC

── Turn 1 · completed · look at the repo · 10s · in 19k out 850 · $0.05 ────────
call                     0s                   10s    dur status      in/out  ctx
├─ Read: README.md       █████                      2.0s ok           3k/50   2%
├─ Task: look around         ████████████████       6.0s ok         15k/700   4%
│  └─ Grep: TODO                ███                 1.0s ok          1k/100  10%
└─ Bash: make                               █████   2.0s ERR         1k/100  80%

────────────────────────────────────────────────────────────────────────────────
total in 19k out 850 · cost $0.05 · 1 error · 0 running · 0 warnings
`;

const SAMPLE_100 = `Fix the failing tests
session sess-1234 · 2 turns · 8 calls · 1m20s wall · 1m12s in turns · from 10:00 UTC

── Overview: one row per turn ──────────────────────────────────────────────────────────────────────
turn                                                                     dur status      in/out     
  1 10:00 1✗ fix the failing tests ██████████████████████████          1m00s ok       141k/4.3k     
  2 10:01 now run it <b>again</b>                              ██████    12s open       180k/40     

── Turn 1 · completed · fix the failing tests · 1m00s · in 141k out 4.3k · $0.42 ───────────────────
call                               0s                           1m00s    dur status      in/out  ctx
├─ Read: src/app.ts                █                                   700ms ok         12k/150   6%
├─ Task: explore the test suite     ██████████████████████               38s ok      48.2k/2.1k  12%
│  ├─ Grep: describe\\(              █                                  400ms ok          1k/100  10%
│  ├─ Bash: npm test                 ██████████                          15s ERR         1k/100  10%
│  └─ Task: check package scripts             █████████                  14s ok        9.5k/640  15%
│     └─ Read: package.json                    █                       300ms ok          1k/100  10%
└─ Edit: src/app.ts                                         ██          1.0s ok         26k/900  13%

── Turn 2 · open · now run it <b>again</b> · 12s · in 180k out 40 · n/a ────────────────────────────
call                               0s                             12s    dur status      in/out  ctx
└─ Bash: echo <script>window.__xs…      ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░    10s RUN        180k/40  91%

────────────────────────────────────────────────────────────────────────────────────────────────────
total in 321k out 4.3k · cost n/a · 1 error · 1 running · 4 warnings
  ! session.jsonl:12: unparseable JSON
  ! session.jsonl:40: tool_result without tool_use
  ! agent-1.jsonl:3: unknown record type
  … and 1 more
`;

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');
const columns = (line: string): number => displayWidth(line);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('renderTerminalWaterfall, colour off', () => {
  it('draws a small tree exactly', () => {
    expect(renderTerminalWaterfall(smallView(), { color: false, width: 80 })).toBe(SMALL_80);
  });

  it('draws nested agents, an error, a running call, turns and warnings exactly', () => {
    expect(renderTerminalWaterfall(sampleView(), { color: false, width: 100 })).toBe(SAMPLE_100);
  });

  it('contains no escape or other control characters, even from hostile labels', () => {
    const view = sampleView();
    view.rows[0]!.label = 'Bash: printf \u001b[2J\u001b]0;pwned\u0007 done\r\nnext';
    const out = renderTerminalWaterfall(view, { color: false, width: 120 });
    expect(out).not.toMatch(CONTROL);
    // Line breaks read as a space; the other controls are shown escaped, not sent.
    expect(out).toContain('├─ Bash: printf \\x1b[2J\\x1b]0;pwned\\x07 don…');
  });

  it('is deterministic', () => {
    const a = renderTerminalWaterfall(sampleView(), { color: false, width: 90 });
    const b = renderTerminalWaterfall(sampleView(), { color: false, width: 90 });
    expect(a).toBe(b);
  });

  it('renders a view without turns as one tree, without turn headers', () => {
    const view = { ...smallView(), turns: [] };
    const out = renderTerminalWaterfall(view, { color: false, width: 80 });
    expect(out).not.toContain('Turn');
    expect(lines(out).filter((l) => /^[├└│]/.test(l))).toHaveLength(4);
  });

  it('renders an empty session', () => {
    const view: WaterfallView = {
      sessionId: 'empty',
      title: '',
      rows: [],
      turns: [],
      totals: { inputTokens: 0, outputTokens: 0, costUsd: null },
      warnings: [],
    };
    const out = renderTerminalWaterfall(view, { color: false, width: 80 });
    // Without a title the id is the title, and is not said again.
    expect(lines(out)[0]).toBe('Session empty');
    expect(lines(out)[1]).toBe('0 turns · 0 calls · 0s');
    expect(out).toContain('0 errors · 0 running · 0 warnings');
  });

  it('puts rows no turn claims under their own header', () => {
    const view = smallView();
    view.turns[0]!.rowIds = ['r1', 'ag'];
    const out = renderTerminalWaterfall(view, { color: false, width: 80 });
    expect(out).toMatch(/── outside any turn ─+\ncall .*\n└─ Bash: make/);
  });
});

describe('renderTerminalWaterfall, colour on', () => {
  it('uses ANSI colours and the ✓ ✗ … markers', () => {
    const out = renderTerminalWaterfall(sampleView(), { color: true, width: 100 });
    expect(out).toContain('\u001b[32m✓\u001b[0m');
    expect(out).toContain('\u001b[31m✗\u001b[0m');
    expect(out).toContain('\u001b[33m…\u001b[0m');
    expect(out).not.toMatch(/ (ok|ERR|RUN) /);
  });

  it('has the same text as colour off once the escapes are removed, markers aside', () => {
    const coloured = renderTerminalWaterfall(sampleView(), { color: true, width: 100 });
    const plain = renderTerminalWaterfall(sampleView(), { color: false, width: 100 });
    // eslint-disable-next-line no-control-regex
    const stripped = coloured.replace(/\u001b\[\d+m/g, '');
    const normalise = (t: string) =>
      t.replace(/ (ok {4}|ERR {3}|RUN {3}|INT {3}|open {2}|[✓✗…■] {5})/g, ' ST');
    expect(normalise(stripped)).toBe(normalise(plain));
  });
});

describe('renderTerminalWaterfall, width', () => {
  it.each([60, 72, 100, 140, 220])('keeps every line within %i columns', (width) => {
    const out = renderTerminalWaterfall(sampleView(), { color: false, width });
    for (const line of lines(out)) expect(columns(line)).toBeLessThanOrEqual(width);
  });

  it('cuts long labels with an ellipsis', () => {
    const view = smallView();
    view.rows[0]!.label = `Read: ${'very/'.repeat(40)}long.ts`;
    const out = renderTerminalWaterfall(view, { color: false, width: 80 });
    expect(out).toContain('├─ Read: very/very/very… █████');
  });

  it('measures emoji, wide CJK characters and combining marks by display width', () => {
    const view = smallView();
    view.rows[0]!.label = 'Read: 🦀🦀🦀.rs';
    view.rows[2]!.label = 'Bash: echo 日本語のテキストを表示する長いコマンドです';
    view.rows[1]!.label = 'Task: cafe\u0301 re\u0301sume\u0301';
    view.turns[0]!.label =
      '新しい機能を追加してください 👍🏽 そしてテストも書いてください、全部まとめて';
    const out = renderTerminalWaterfall(view, { color: false, width: 80 });
    for (const line of lines(out)) expect(columns(line)).toBeLessThanOrEqual(80);
    const rowsOut = lines(out).filter((l) => /^[├└│]/.test(l));
    // Every call row is exactly as wide, and its bar column starts at one offset.
    for (const line of rowsOut) expect(columns(line)).toBe(80);
    // The columns right of the bar are ASCII: whatever the label holds, they start at one column.
    const right = '    dur status      in/out  ctx'.length;
    for (const line of rowsOut)
      expect(columns(line.slice(0, line.length - right))).toBe(80 - right);
    expect(lines(out).find((l) => l.includes('🦀'))).toContain('Read: 🦀🦀🦀.rs');
    expect(lines(out).find((l) => l.startsWith('└─ Bash'))).toContain('…');
    expect(out).toContain('Task: cafe\u0301 re\u0301sume\u0301');
    expect(columns(lines(out).find((l) => l.startsWith('── Turn'))!)).toBe(80);
  });

  it('never goes below 60 columns', () => {
    const out = renderTerminalWaterfall(sampleView(), { color: false, width: 20 });
    expect(Math.max(...lines(out).map(columns))).toBe(60);
  });
});

describe('renderTerminalWaterfall, running rows', () => {
  it('end at the last timestamp of the view by default', () => {
    const out = renderTerminalWaterfall(sampleView(), { color: false, width: 100 });
    expect(out).toMatch(/░{5} +10s RUN/);
  });

  it('extend to opts.now, which also stretches the axis of their turn', () => {
    const out = renderTerminalWaterfall(sampleView(), {
      color: false,
      width: 100,
      now: T0 + 160_000,
    });
    expect(out).toContain('1m32s    dur status');
    expect(out).toMatch(/░{34} +1m30s RUN/);
    // A finished turn has its own axis: its rows do not move.
    expect(out).toMatch(/Task: explore the test suite +█{22} +38s ok/);
  });
});

describe('formatting helpers', () => {
  it.each([
    [0, '0ms'],
    [350, '350ms'],
    [1_234, '1.2s'],
    [9_960, '10.0s'],
    [42_000, '42s'],
    [59_700, '1m00s'],
    [125_000, '2m05s'],
    [3_725_000, '1h02m'],
  ])('formatDuration(%d) = %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([
    [950, '950'],
    [1_000, '1k'],
    [12_345, '12.3k'],
    [125_000, '125k'],
    [999_700, '1M'],
    [1_250_000, '1.3M'],
  ])('formatTokens(%d) = %s', (n, text) => {
    expect(formatTokens(n)).toBe(text);
  });

  it('formats costs, unknown ones as n/a', () => {
    expect(formatCost(0.4213)).toBe('$0.42');
    expect(formatCost(0.0031)).toBe('$0.0031');
    expect(formatCost(null)).toBe('n/a');
  });
});
