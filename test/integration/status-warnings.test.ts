// `ccotel status` reports the malformed lines of the sessions it lists: on
// stderr one warning per line with file and line (as export prints them), and
// in --json a count per session. A clean session prints exactly as before.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusJson } from '../../src/app/status/status-view.js';
import { runCcotel, type CliRun } from '../support/run-cli.js';

const HOOK_STOP = 'fixtures/real-layout/hook-stop';
const SESSION = 'd266fdf5-b6a3-46aa-8627-920959a0109a';
/** The broken copy's own id, so that both sessions are listed side by side. */
const BROKEN = '0b0b0b0b-1111-4222-8333-444444444444';
/** After the fixture's events (February 2026); a year's window lists it. */
const NOW = '2026-09-01T00:00:00.000Z';
const YEAR = String(24 * 365);

let dir: string;
let cleanRoot: string;
let bothRoot: string;
let brokenFile: string;

/**
 * The fixture's 20 lines with a stray non-JSON line after line 3 (output that
 * leaked into the file) and the then last-but-one line cut in half (a torn
 * write that the next line was appended after): lines 4 and 20 of 21.
 */
function brokenCopy(text: string): string {
  const lines = text.trimEnd().split('\n');
  const torn = lines[lines.length - 2] ?? '';
  lines[lines.length - 2] = torn.slice(0, Math.floor(torn.length / 2));
  lines.splice(3, 0, 'npm WARN exec The following package was not found');
  return `${lines.join('\n')}\n`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-status-warn-'));
  cleanRoot = join(dir, 'clean');
  cpSync(HOOK_STOP, join(cleanRoot, 'hook-stop'), { recursive: true });
  bothRoot = join(dir, 'both');
  cpSync(HOOK_STOP, join(bothRoot, 'hook-stop'), { recursive: true });
  mkdirSync(join(bothRoot, 'broken'));
  brokenFile = join(bothRoot, 'broken', `${BROKEN}.jsonl`);
  writeFileSync(brokenFile, brokenCopy(readFileSync(join(HOOK_STOP, `${SESSION}.jsonl`), 'utf8')));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `ccotel status` in process at the fixed --now, its state dir in the temp dir. */
const status = (args: string[]): Promise<CliRun> =>
  runCcotel(['status', '--now', NOW, ...args], { XDG_STATE_HOME: join(dir, 'state') });

const rowOf = (rows: StatusJson[], sessionId: string): StatusJson | undefined =>
  rows.find((r) => r.sessionId === sessionId);

describe('ccotel status with malformed transcript lines', () => {
  it('warns of each bad line with file and line, in the table view', async () => {
    const { code, stdout, stderr } = await status(['--hours', YEAR, '--projects-dir', bothRoot]);
    expect(code).toBe(0);
    expect(stderr.split('\n').filter((l) => l.startsWith('warning: '))).toEqual([
      expect.stringMatching(new RegExp(`^warning: ${brokenFile}:4: invalid JSON`)) as string,
      expect.stringMatching(new RegExp(`^warning: ${brokenFile}:20: invalid JSON`)) as string,
    ]);
    // The table itself still lists both sessions, one line each.
    expect(
      stdout.split('\n').filter((l) => l.startsWith(BROKEN) || l.startsWith(SESSION)),
    ).toHaveLength(2);
  });

  it('--json counts them per session and still prints the warnings to stderr', async () => {
    const table = await status(['--hours', YEAR, '--projects-dir', bothRoot]);
    const { code, stdout, stderr } = await status([
      '--json',
      '--hours',
      YEAR,
      '--projects-dir',
      bothRoot,
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe(table.stderr);
    const rows = JSON.parse(stdout) as StatusJson[];
    expect(rowOf(rows, BROKEN)?.malformedLines).toBe(2);
    expect(rowOf(rows, SESSION)).not.toHaveProperty('malformedLines');
  });

  it('leaves a clean session as it was: same JSON object, same table line, nothing on stderr', async () => {
    const alone = await status(['--json', '--hours', YEAR, '--projects-dir', cleanRoot]);
    expect(alone.stderr).toBe('');
    const [cleanRow] = JSON.parse(alone.stdout) as StatusJson[];
    expect(Object.keys(cleanRow ?? {})).not.toContain('malformedLines');
    const both = await status(['--json', '--hours', YEAR, '--projects-dir', bothRoot]);
    const beside = rowOf(JSON.parse(both.stdout) as StatusJson[], SESSION);
    expect(JSON.stringify({ ...beside, file: '' })).toBe(JSON.stringify({ ...cleanRow, file: '' }));

    const table = await status(['--hours', YEAR, '--projects-dir', cleanRoot]);
    expect(table.stderr).toBe('');
    // Cells, not padding: the other session's project widens the column.
    const cells = (out: string) =>
      out
        .split('\n')
        .find((l) => l.startsWith(SESSION))
        ?.split(/\s{2,}/);
    const bothTable = await status(['--hours', YEAR, '--projects-dir', bothRoot]);
    expect(cells(bothTable.stdout)).toEqual(cells(table.stdout));
  });

  it('shows the first 20 warnings, then how many more, as export does', async () => {
    const root = join(dir, 'garbage');
    mkdirSync(join(root, 'p'), { recursive: true });
    const junk = Array.from({ length: 25 }, (_, i) => `junk ${i}`).join('\n');
    const text = readFileSync(join(HOOK_STOP, `${SESSION}.jsonl`), 'utf8');
    const file = join(root, 'p', `${SESSION}.jsonl`);
    writeFileSync(file, `${junk}\n${text}`);
    const { stderr, stdout } = await status(['--json', '--hours', YEAR, '--projects-dir', root]);
    const warnings = stderr.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings).toHaveLength(21);
    expect(warnings[0]).toMatch(new RegExp(`^warning: ${file}:1: `));
    expect(warnings[19]).toMatch(new RegExp(`^warning: ${file}:20: `));
    expect(warnings[20]).toBe('warning: … and 5 more malformed lines');
    expect((JSON.parse(stdout) as StatusJson[])[0]?.malformedLines).toBe(25);
  });

  it('does not warn of a session outside --hours, even one it had to read to know', async () => {
    // The files were just written (mtime inside any window), their events are
    // from February: read, found too old, not listed, and so not warned of.
    const { code, stdout, stderr } = await status(['--hours', '24', '--projects-dir', bothRoot]);
    expect(code).toBe(0);
    expect(stdout).toBe('No sessions active in the last 24 hours.\n');
    expect(stderr).toBe('');
  });
});
