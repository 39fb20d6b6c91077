// `ccotel show` on a long generated session (40 turns over a day, CJK and
// emoji prompts, sub-agents, failures), through the real CLI code path: every
// line fits the terminal by display width, columns line up, and the filters
// and the compact mode print what they say.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { displayWidth } from '../../src/app/show/render/text-width.js';
import { writeLongSession, type LongSession } from '../../bench/lib/long-session.mjs';

let dir: string;
let session: LongSession;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-long-'));
  session = writeLongSession({ dir, turns: 40, callsPerTurn: 8, seed: 7 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function show(
  args: string[],
  tty: { isTTY: boolean; columns?: number; env?: NodeJS.ProcessEnv },
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['show', session.file, '--no-color', ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { HOME: process.env.HOME, PATH: process.env.PATH, ...tty.env },
    isTTY: tty.isTTY,
    columns: tty.columns ?? 100,
    stopSignal: new Promise(() => undefined),
  });
  return { code, stdout, stderr };
}

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');
const callRows = (text: string): string[] => lines(text).filter((l) => /^[├└│]/.test(l));
/** The ASCII columns right of the bar: ` dur status in/out ctx`. */
const RIGHT = '    dur status      in/out  ctx'.length;

describe('show on a long session with wide-character prompts', () => {
  it('keeps every line within 100 columns on a 100-column terminal, columns aligned', async () => {
    const run = await show([], { isTTY: true, columns: 100 });
    expect(run.code).toBe(0);
    const all = lines(run.stdout);
    expect(all.length).toBeGreaterThan(session.calls);
    for (const line of all) expect(displayWidth(line)).toBeLessThanOrEqual(100);
    // Prompts in CJK and emoji did reach the page, cut by width.
    expect(run.stdout).toMatch(/── Turn 0 · completed · 認証モジュール/);
    expect(run.stdout).toContain('Refactor the retry policy ✨');
    const rows = callRows(run.stdout);
    expect(rows).toHaveLength(session.calls);
    for (const row of rows) {
      expect(displayWidth(row)).toBe(100);
      expect(displayWidth(row.slice(0, row.length - RIGHT))).toBe(100 - RIGHT);
    }
  });

  it('fits $COLUMNS off a terminal, and 100 columns when it is not set', async () => {
    const narrow = await show([], { isTTY: false, columns: 300, env: { COLUMNS: '72' } });
    for (const line of lines(narrow.stdout)) expect(displayWidth(line)).toBeLessThanOrEqual(72);
    expect(Math.max(...lines(narrow.stdout).map(displayWidth))).toBe(72);
    const unset = await show([], { isTTY: false, columns: 300 });
    expect(Math.max(...lines(unset.stdout).map(displayWidth))).toBe(100);
  });

  it('opens with an overview of every turn on a folded axis', async () => {
    const run = await show([], { isTTY: true, columns: 100 });
    const all = lines(run.stdout);
    const start = all.findIndex((l) => l.startsWith('── Overview: one row per turn'));
    expect(all[start]).toContain('idle gaps over 1m folded (┊)');
    const overview = all.slice(start + 2, start + 2 + session.turns);
    expect(overview.map((l) => l.trim().split(' ')[0])).toEqual(
      Array.from({ length: session.turns }, (_, i) => String(i)),
    );
    // Folded: the last turn, 20 hours after the first, still ends at the right edge.
    expect(overview.at(-1)).toMatch(/█ +\d+m\d\ds /);
    expect(overview[0]).toMatch(/^ {2}0 11-30 07:00 /);
  });

  it('scales each turn to itself: its longest call fills a good part of the bar', async () => {
    const run = await show(['--turn', '0'], { isTTY: true, columns: 100 });
    const widest = Math.max(...callRows(run.stdout).map((r) => (r.match(/█/g) ?? []).length));
    expect(widest).toBeGreaterThanOrEqual(10);
  });

  it('--turn N shows that turn only, numbered as the view prints it', async () => {
    const run = await show(['--turn', '3'], { isTTY: true, columns: 100 });
    expect(run.stdout.match(/── Turn \d+/g)).toEqual(['── Turn 3']);
    expect(run.stdout).toContain('showing turn 3 · 1 of 40 turns');
    expect(callRows(run.stdout).length).toBeGreaterThan(0);
  });

  it('--errors keeps failed calls and the agents they ran in', async () => {
    const run = await show(['--errors'], { isTTY: true, columns: 100 });
    const rows = callRows(run.stdout);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/ ERR |^├─ Agent|^└─ Agent/);
    expect(rows.some((r) => r.includes(' ERR '))).toBe(true);
  });

  it('--since and --until pick turns by start time, as export does', async () => {
    const run = await show(['--since', '2026-12-01', '--until', '2026-12-01T03:00:00Z'], {
      isTTY: true,
      columns: 100,
    });
    const starts = [...run.stdout.matchAll(/^ +\d+ (\d\d:\d\d) /gm)].map((m) => m[1]!);
    expect(starts.length).toBeGreaterThan(1);
    for (const s of starts) expect(s < '03:00').toBe(true);
    expect(run.stdout).toMatch(
      /showing since 2026-12-01T00:00:00.000Z · until 2026-12-01T03:00:00.000Z · \d+ of 40 turns/,
    );
  });

  it('--compact prints one line per turn with its slowest calls', async () => {
    const run = await show(['--compact'], { isTTY: true, columns: 100 });
    const turnLines = lines(run.stdout).filter((l) => /^ +\d+ \d\d-\d\d \d\d:\d\d /.test(l));
    expect(turnLines).toHaveLength(session.turns);
    for (const line of turnLines) {
      expect(displayWidth(line)).toBeLessThanOrEqual(100);
      expect(line).toContain(' │ ');
    }
    expect(callRows(run.stdout)).toEqual([]);
  });

  it.each([
    [['--turn', '40'], '--turn: no turn 40; this session has turns 0–39'],
    [['--turn', 'x'], "--turn: not a turn number (0, 1, 2…): 'x'"],
    [['--since', 'yesterday'], "--since: not a date or time: 'yesterday'"],
    [['--until', '2026-13-45'], "--until: not a date or time: '2026-13-45'"],
  ])('refuses %j in one line naming the flag', async (args, message) => {
    const run = await show(args, { isTTY: true });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`ccotel: ${message}\n`);
  });
});
