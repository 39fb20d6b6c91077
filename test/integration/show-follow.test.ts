// `ccotel show --follow`, the built binary, against a real Claude Code session
// (parallel web calls, a Task sub-agent, an interrupted turn) written line by
// line with its times moved to now: in a real terminal (tmux, read back with
// capture-pane) and off one (a pipe). The finished turns' calls equal what
// `show --json` gives for the same file.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, runBuilt } from '../support/fault-harness.js';
import { ON_WINDOWS } from '../support/platform.js';
import { waitUntil } from '../support/wait-until.js';
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';

const FIXTURE = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';
const SESSION = '491e126e-1e71-469c-ade2-fcc8af567c74';
const TMUX = spawnSync('tmux', ['-V']).status === 0;
/** .ci/run installs tmux and sets this: there a missing tmux fails the terminal tests instead of skipping them. */
const TMUX_REQUIRED = process.env.CCOTEL_REQUIRE_TMUX === '1';
const WIDTH = 80;

// Transcript records as JSON: the fields moved are read by name.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ccotel-follow-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture's lines with every timestamp moved so that line `at` happened `agoMs` before now. */
function shiftedLines(at: number, agoMs: number): string[] {
  const lines = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
  const stamp = (l: string): number => Date.parse(String((JSON.parse(l) as Json).timestamp));
  const dated = lines.findIndex((l, i) => i >= at && Number.isFinite(stamp(l)));
  const delta = Date.now() - agoMs - stamp(lines[dated] ?? '');
  return lines.map((l) => {
    const r = JSON.parse(l) as Json;
    if (typeof r.timestamp === 'string')
      r.timestamp = new Date(Date.parse(r.timestamp) + delta).toISOString();
    return JSON.stringify(r);
  });
}

/** Index of the line holding the call `name`'s tool_use, and of its result. */
function callAndResult(lines: string[], name: string): { call: number; result: number } {
  const records = lines.map((l) => JSON.parse(l) as Json);
  const call = records.findIndex(
    (r) =>
      r.type === 'assistant' &&
      (r.message?.content ?? []).some((c: Json) => c.type === 'tool_use' && c.name === name),
  );
  const id = (records[call]?.message.content as Json[]).find((c) => c.name === name)?.id as string;
  const result = records.findIndex(
    (r, i) =>
      i > call &&
      Array.isArray(r.message?.content) &&
      r.message.content.some((c: Json) => c.tool_use_id === id),
  );
  return { call, result };
}

const rowsOfShowJson = async (file: string): Promise<WaterfallRow[]> => {
  const run = await runBuilt(['show', '--json', file], { PATH: process.env.PATH ?? '' });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { rows: WaterfallRow[] }).rows;
};

const flat = (rows: WaterfallRow[]): WaterfallRow[] =>
  rows.flatMap((r) => [r, ...flat(r.children)]);

describe.skipIf(ON_WINDOWS || (!TMUX && !TMUX_REQUIRED))(
  `show --follow in a real terminal (${ON_WINDOWS ? 'skipped on Windows: no tmux' : TMUX ? 'tmux' : 'skipped: tmux not installed'})`,
  () => {
    beforeAll(() => {
      if (!TMUX) throw new Error('tmux is not installed, and CCOTEL_REQUIRE_TMUX=1 asks for it');
    });
    const name = `ccotel-follow-${process.pid}`;
    const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
    const pane = (session = name): string => tmux('capture-pane', '-p', '-t', session);
    // Each test its own tmux session: a killed one may linger for a moment.
    const nested = `${name}-nested`;
    afterAll(() => {
      spawnSync('tmux', ['kill-session', '-t', name]);
      spawnSync('tmux', ['kill-session', '-t', nested]);
    });

    it('draws a running call ticking, then done; nests the sub-agent; fits the pane; restores the terminal on q', async () => {
      const file = join(dir, `${SESSION}.jsonl`);
      const probe = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
      const { call, result } = callAndResult(probe, 'AskUserQuestion');
      const lines = shiftedLines(call, 3000);
      writeFileSync(file, `${lines.slice(0, call + 1).join('\n')}\n`);
      tmux(
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        String(WIDTH),
        '-y',
        '30',
        `printf 'before\\n'; node ${CLI} show --follow ${file}; printf 'after\\n'; sleep 30`,
      );
      await waitUntil(() => /AskUserQuestion/.test(pane()), 15_000, 'the running call in the pane');
      const first = pane();
      expect(first).toMatch(/… AskUserQuestion\s+running (\d+\.\d|\d+)s/);
      expect(first).toContain('working');
      const clock = (text: string): string =>
        /AskUserQuestion\s+running (\S+)/.exec(text)?.[1] ?? '';
      await waitUntil(() => clock(pane()) !== clock(first), 5_000, 'the running call to tick');
      // Its answer, then the rest of the session.
      appendFileSync(file, `${lines.slice(call + 1, result + 1).join('\n')}\n`);
      await waitUntil(() => /✓ AskUserQuestion/.test(pane()), 5_000, 'the call to be done');
      // Done with the duration the transcript gives it (its times were all moved alike).
      expect(pane()).toMatch(/✓ AskUserQuestion +2m15s\n/);
      appendFileSync(file, `${lines.slice(result + 1).join('\n')}\n`);
      await waitUntil(() => /your turn/.test(pane()), 5_000, 'the state to become your turn');
      const end = pane();
      expect(end).toMatch(/turn 0 ✗ .*21 calls, 3 failed/);
      expect(end).toMatch(/turn 1 ✓ .*4 calls/);
      for (const line of end.split('\n')) expect(line.length).toBeLessThanOrEqual(WIDTH);
      tmux('send-keys', '-t', name, 'q');
      await waitUntil(() => /after/.test(pane()), 5_000, 'ccotel to exit on q');
      // The alternate screen is gone: what was printed before is back.
      expect(pane()).toMatch(/before\s*\n\s*after/);
    }, 60_000);

    it('nests a sub-agent’s calls under it while the turn runs', async () => {
      const file = join(dir, `${SESSION}.jsonl`);
      const probe = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
      const { call } = callAndResult(probe, 'Write');
      const lines = shiftedLines(call, 2000);
      rmSync(file, { force: true });
      writeFileSync(file, `${lines.slice(0, call + 1).join('\n')}\n`);
      tmux(
        'new-session',
        '-d',
        '-s',
        nested,
        '-x',
        String(WIDTH),
        '-y',
        '40',
        `node ${CLI} show --follow ${file}`,
      );
      await waitUntil(() => /Task: Draft beads/.test(pane(nested)), 15_000, 'the agent row');
      // A finished agent is one line with its count; `a` opens every agent.
      expect(pane(nested)).toMatch(/ {2}✓ Task: Draft beads for linting setup \(\+9 calls\)/);
      expect(pane(nested)).toContain('… Write: plan.md');
      tmux('send-keys', '-t', nested, 'a');
      await waitUntil(
        () => /\n {2}✓ Task: Draft beads[^\n]*\n {4}✗ Read/.test(pane(nested)),
        5_000,
        'the agent opened',
      );
      // ↑ picks the last call, Enter shows its details.
      tmux('send-keys', '-t', nested, 'Up');
      await waitUntil(() => /\n> … Write: plan\.md/.test(pane(nested)), 5_000, 'the pick');
      tmux('send-keys', '-t', nested, 'Enter');
      await waitUntil(
        () => /── Write: plan\.md\n\s*running/.test(pane(nested)),
        5_000,
        'the details',
      );
      // e: the failed calls only, in their agent.
      tmux('send-keys', '-t', nested, 'e');
      await waitUntil(() => /errors only/.test(pane(nested)), 5_000, 'errors only');
      const errors = pane(nested);
      expect(errors).toMatch(/✗ Read: …\/projects\/spotter/);
      expect(errors).not.toContain('Write: plan.md');
      expect(errors).not.toContain('✓ Bash');
      tmux('send-keys', '-t', nested, 'C-c');
    }, 60_000);
  },
);

describe.skipIf(ON_WINDOWS)(
  `show --follow off a terminal (${ON_WINDOWS ? 'skipped on Windows: POSIX pipes and signals' : 'a pipe'})`,
  () => {
    it('--once: one line per finished call and turn, no control byte, the calls of show --json', async () => {
      const run = await runBuilt(['show', '--follow', FIXTURE, '--once'], {
        PATH: process.env.PATH ?? '',
        COLUMNS: '200',
      });
      expect(run.code, run.stderr).toBe(0);
      // Control bytes are what must not be there.
      // eslint-disable-next-line no-control-regex
      expect(run.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
      const lines = run.stdout.trimEnd().split('\n');
      const rows = flat(await rowsOfShowJson(FIXTURE));
      const calls = lines.filter((l) => /^turn \d+ +[✓✗…] /.test(l) && !/ · \d+ calls/.test(l));
      expect(calls).toHaveLength(rows.length);
      // Each call's label and outcome as show --json has them, in its order.
      rows.forEach((row, i) => {
        expect(calls[i]).toContain(row.label.slice(0, 40));
        expect(calls[i]?.includes(' failed')).toBe(row.status === 'error');
      });
      expect(lines.filter((l) => / · \d+ calls/.test(l))).toHaveLength(2);
    });

    it('without a target: the newest session of the project dir named after the current directory', async () => {
      const projects = join(dir, 'projects');
      const cwd = join(dir, 'work', 'app');
      const { mkdirSync, copyFileSync, utimesSync } = await import('node:fs');
      mkdirSync(cwd, { recursive: true });
      const here = join(projects, cwd.replace(/[^A-Za-z0-9]/g, '-'));
      const elsewhere = join(projects, '-somewhere-else');
      mkdirSync(here, { recursive: true });
      mkdirSync(elsewhere, { recursive: true });
      copyFileSync(FIXTURE, join(here, `${SESSION}.jsonl`));
      const other = 'd266fdf5-b6a3-46aa-8627-920959a0109a';
      copyFileSync(
        'fixtures/real-layout/hook-stop/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl',
        join(elsewhere, `${other}.jsonl`),
      );
      // The other project's session is newer, but this directory has one of its own.
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(join(here, `${SESSION}.jsonl`), old, old);
      const follow = (from: string): string =>
        execFileSync(
          process.execPath,
          [CLI, 'show', '--follow', '--once', '--projects-dir', projects],
          {
            cwd: from,
            env: { PATH: process.env.PATH ?? '' },
            encoding: 'utf8',
          },
        );
      expect(follow(cwd)).toContain('Draft beads for linting setup');
      // From a directory without a project: the newest session anywhere.
      expect(follow(dir)).not.toContain('Draft beads for linting setup');
    });

    it('follows a growing file: each finished call is printed once, as it finishes', async () => {
      const file = join(dir, `pipe-${Date.now()}`, `${SESSION}.jsonl`);
      const lines = shiftedLines(0, 60_000);
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(file, '..'), { recursive: true });
      const half = Math.floor(lines.length / 2);
      writeFileSync(file, `${lines.slice(0, half).join('\n')}\n`);
      const child = spawn(process.execPath, [CLI, 'show', '--follow', file], {
        env: { PATH: process.env.PATH ?? '' },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      try {
        await waitUntil(() => out.includes('turn 0'), 10_000, 'the first lines');
        const before = out.split('\n').length;
        appendFileSync(file, `${lines.slice(half).join('\n')}\n`);
        await waitUntil(() => / · 4 calls/.test(out), 10_000, 'the last turn to be told');
        expect(out.split('\n').length).toBeGreaterThan(before);
        const calls = out
          .trimEnd()
          .split('\n')
          .filter((l) => !/ · \d+ calls/.test(l));
        expect(new Set(calls).size).toBe(calls.length);
        expect(calls).toHaveLength(flat(await rowsOfShowJson(file)).length);
      } finally {
        child.kill('SIGTERM');
      }
    }, 30_000);
  },
);
