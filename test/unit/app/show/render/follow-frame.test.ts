// The follow view's frame and lines: every line within the width (wide
// characters counted as two), transcript text made printable, the latest
// calls kept when the screen is short, and the state said in words.
import { describe, expect, it } from 'vitest';
import {
  followEventLine,
  followFrame,
  INITIAL_VIEW,
  stateText,
  visibleRows,
} from '../../../../../src/app/show/render/follow-frame.js';
import { displayWidth } from '../../../../../src/app/show/render/text-width.js';
import type {
  FollowSnapshot,
  FollowTurn,
} from '../../../../../src/app/show/follow/session-follow.js';
import type { StatusSnapshot } from '../../../../../src/core/session/live-status.js';
import type { WaterfallRow } from '../../../../../src/core/view/waterfall-row.js';

const NOW = Date.parse('2026-12-02T10:00:00Z');

const row = (id: string, label: string, over: Partial<WaterfallRow> = {}): WaterfallRow => ({
  id,
  type: 'tool',
  toolName: label.split(':')[0] ?? label,
  label,
  startTime: NOW - 5000,
  endTime: NOW - 4000,
  duration: 1000,
  status: 'success',
  parentAgentId: null,
  input: {},
  output: null,
  inputTokens: 100,
  outputTokens: 10,
  contextFillPercent: 12,
  children: [],
  ...over,
});

const status = (over: Partial<StatusSnapshot> = {}): StatusSnapshot => ({
  state: 'working',
  stale: false,
  confirmed: false,
  retrying: false,
  errorType: null,
  lastActivity: NOW,
  lastPromptAt: NOW - 10_000,
  openToolCalls: [],
  cwd: null,
  gitBranch: null,
  version: null,
  ...over,
});

const turn = (index: number, rows: WaterfallRow[], over: Partial<FollowTurn> = {}): FollowTurn => ({
  index,
  label: `prompt ${index}`,
  startTime: NOW - 10_000,
  endTime: NOW - 1000,
  endState: 'completed',
  inputTokens: 1200,
  outputTokens: 300,
  costUsd: 0.0123,
  rowIds: rows.map((r) => r.id),
  rows,
  calls: rows.length,
  errors: 0,
  contextFillPercent: 12,
  ...over,
});

const snapshot = (over: Partial<FollowSnapshot> = {}): FollowSnapshot => ({
  sessionId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
  header: null,
  status: status(),
  finished: [],
  open: null,
  ...over,
});

describe('followFrame', () => {
  it('fits every line to the width, wide characters and hostile text included', () => {
    const hostile = row(
      'h',
      'Bash: echo \x1b]0;pwned\x07 \x1b[2J 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 \u202eevil',
    );
    const running = row('r', 'Read: src/a.ts', {
      status: 'running',
      endTime: null,
      duration: null,
      startTime: NOW - 12_000,
    });
    const frame = followFrame(
      snapshot({ open: turn(3, [hostile, running], { endState: 'open' }) }),
      NOW,
      60,
      20,
    );
    for (const line of frame) {
      expect(displayWidth(line)).toBeLessThanOrEqual(60);
      // Control bytes are what must not be there.
      // eslint-disable-next-line no-control-regex
      expect(line).not.toMatch(/[\x00-\x1f\x7f\u009b\u202a-\u202e\u2066-\u2069]/);
    }
    expect(frame.join('\n')).toMatch(/… Read: src\/a\.ts +running 12s/);
    expect(frame.at(-1)).toBe('q quit · ↑/↓ pick · Enter details · e errors · a agents');
  });

  it('keeps the latest calls, says how many earlier ones it left out, and stays within the height', () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(`c${i}`, `Read: file-${i}.ts`));
    const frame = followFrame(
      snapshot({ open: turn(1, rows, { endState: 'open' }), finished: [turn(0, [])] }),
      NOW,
      80,
      15,
    );
    expect(frame.length).toBeLessThanOrEqual(15);
    const text = frame.join('\n');
    expect(text).toContain('Read: file-39.ts');
    expect(text).not.toContain('Read: file-0.ts ');
    expect(text).toMatch(/\(\d+ earlier calls\)/);
    expect(text).toMatch(/turn 0 ✓ 9\.0s · 0 calls/);
  });

  it('folds a finished agent to one line, opens it with expand-all, and always while it runs', () => {
    const agent = row('a', 'Task: explore', {
      type: 'agent',
      children: [row('k', 'Grep: foo', { parentAgentId: 'a' })],
    });
    const draw = (a: WaterfallRow, view = INITIAL_VIEW) =>
      followFrame(snapshot({ open: turn(0, [a], { endState: 'open' }) }), NOW, 80, 20, view);
    expect(draw(agent).find((l) => l.includes('Task: explore'))).toMatch(
      /^ {2}✓ Task: explore \(\+1 calls\)/,
    );
    const open = draw(agent, { ...INITIAL_VIEW, expandAll: true });
    const at = open.findIndex((l) => l.includes('Task: explore'));
    expect(open[at + 1]).toMatch(/^ {4}✓ Grep: foo/);
    const running = draw({ ...agent, status: 'running', endTime: null, duration: null });
    expect(running.some((l) => /^ {4}✓ Grep: foo/.test(l))).toBe(true);
  });

  it('with errors only lists the failed calls and the agents holding one; a pick shows its details', () => {
    const failed = row('f', 'Read: gone.ts', {
      status: 'error',
      parentAgentId: 'a',
      output: 'ENOENT',
    });
    const agent = row('a', 'Task: explore', {
      type: 'agent',
      children: [row('k', 'Grep: foo'), failed],
    });
    const rows = [row('b', 'Bash: ls'), agent];
    const view = { ...INITIAL_VIEW, errorsOnly: true };
    expect(visibleRows(rows, view).map((r) => r.row.id)).toEqual(['a', 'f']);
    const frame = followFrame(
      snapshot({ open: turn(0, rows, { endState: 'open' }) }),
      NOW,
      80,
      20,
      { ...view, selected: 1, details: true },
    );
    expect(frame.some((l) => /^> {3}✗ Read: gone\.ts +1\.0s$/.test(l))).toBe(true);
    expect(frame).toContain('── Read: gone.ts');
    expect(frame).toContain('output: ENOENT');
    expect(frame.at(-1)).toMatch(/^errors only · q quit/);
  });

  it('waits for the next prompt when no turn is open', () => {
    const frame = followFrame(snapshot({ status: status({ state: 'your_turn' }) }), NOW, 80, 10);
    expect(frame[0]).toContain('your turn');
    expect(frame).toContain('  waiting for the next prompt');
  });
});

describe('stateText', () => {
  it('says each state in words', () => {
    expect(stateText(status({ openToolCalls: [{ id: 'x', name: 'Bash' }] }))).toBe(
      'working (1 call running)',
    );
    expect(stateText(status({ state: 'api_error', errorType: 'rate_limit', retrying: true }))).toBe(
      'API error: rate_limit, retrying',
    );
    expect(stateText(status({ state: 'unknown', stale: true }))).toBe('quiet for a while');
  });
});

describe('followEventLine', () => {
  it('prints a call with its turn, nesting, duration and failure, printable', () => {
    const line = followEventLine(
      {
        kind: 'call',
        turn: 2,
        depth: 1,
        row: row('e', 'Bash: false\x1b[31m', { status: 'error' }),
      },
      100,
    );
    expect(line).toBe('turn 2   ✗ Bash: false\\x1b[31m 1.0s failed');
  });
});
