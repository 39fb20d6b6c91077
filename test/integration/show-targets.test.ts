// The targets `show` and `export` document, through the built binary: a
// session dir (<proj>/<session-id>/, where 2.1.x keeps sub-agents), a session
// id, and the start of one (unique: that session; ambiguous: a one-line error
// naming the candidates; unknown: a one-line error naming where it looked).
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBuilt } from '../support/fault-harness.js';
import { ON_WINDOWS, POSIX_CHILD_ENV } from '../support/platform.js';

const WITH_AGENTS = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';
const OTHER = '8aa54c1d-5030-4491-be42-e0c416424b8a';
/** Shares its first 6 hex digits with WITH_AGENTS. */
const TWIN = 'bd8ec9ff-0000-4000-8000-000000000000';

let base: string;
let env: NodeJS.ProcessEnv;
let projects: string;

const ccotel = (args: string[]): ReturnType<typeof runBuilt> => runBuilt(args, env);

describe.skipIf(ON_WINDOWS)(
  `show and export targets, built CLI (${POSIX_CHILD_ENV}: the ids are found under a fake HOME)`,
  () => {
    beforeAll(() => {
      ensureBuilt();
      base = mkdtempSync(join(tmpdir(), 'ccotel-targets-'));
      env = { PATH: process.env.PATH ?? '', HOME: join(base, 'home') };
      projects = join(base, 'home', '.claude', 'projects');
      cpSync('fixtures/hand/v21-subagents-meta', join(projects, 'meta'), { recursive: true });
      // The other default location holds the second project.
      const xdg = join(base, 'home', '.config', 'claude', 'projects');
      cpSync('fixtures/real-layout/compact-command', join(xdg, 'compact'), { recursive: true });
      copyFileSync(
        join(projects, 'meta', `${WITH_AGENTS}.jsonl`),
        join(projects, 'meta', `${TWIN}.jsonl`),
      );
    }, 120_000);

    afterAll(() => {
      if (base) rmSync(base, { recursive: true, force: true });
    });

    interface Row {
      parentAgentId: string | null;
      children?: Row[];
    }
    /** Rows inside a sub-agent, at any depth: only there when its files were found. */
    const agentRows = (rows: Row[]): number =>
      rows.reduce(
        (n, r) => n + (r.parentAgentId !== null ? 1 : 0) + agentRows(r.children ?? []),
        0,
      );
    const rowsOf = (stdout: string): Row[] => (JSON.parse(stdout) as { rows: Row[] }).rows;

    describe('show and export targets', () => {
      it('a session dir (with its trailing slash) is that session, sub-agents included', async () => {
        const dir = `${join(projects, 'meta', WITH_AGENTS)}/`;
        const byDir = await ccotel(['show', '--json', dir]);
        expect(byDir.stderr).toBe('');
        expect(byDir.code).toBe(0);
        const byFile = await ccotel([
          'show',
          '--json',
          join(projects, 'meta', `${WITH_AGENTS}.jsonl`),
        ]);
        expect(byDir.stdout).toBe(byFile.stdout);
        expect((JSON.parse(byDir.stdout) as { sessionId: string }).sessionId).toBe(WITH_AGENTS);
        expect(agentRows(rowsOf(byDir.stdout))).toBe(6);
      });

      it('export takes a session dir as that one session', async () => {
        const run = await ccotel(['export', '--dry-run', join(projects, 'meta', WITH_AGENTS)]);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/^dry run: 1 sessions, 1 turns/);
      });

      it('a full session id, looked up in every default projects dir', async () => {
        const run = await ccotel(['show', '--json', OTHER]);
        expect(run.code, run.stderr).toBe(0);
        expect((JSON.parse(run.stdout) as { sessionId: string }).sessionId).toBe(OTHER);
      });

      it('a unique id prefix is that session', async () => {
        const run = await ccotel(['show', '--json', OTHER.slice(0, 8)]);
        expect(run.code, run.stderr).toBe(0);
        expect((JSON.parse(run.stdout) as { sessionId: string }).sessionId).toBe(OTHER);
        const longer = await ccotel(['show', '--json', WITH_AGENTS.slice(0, 13)]);
        expect(longer.code, longer.stderr).toBe(0);
        expect((JSON.parse(longer.stdout) as { sessionId: string }).sessionId).toBe(WITH_AGENTS);
      });

      it('an ambiguous prefix: one line listing the candidates, exit 2', async () => {
        const run = await ccotel(['show', 'bd8ec9']);
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(
          `ccotel: session id prefix bd8ec9 is ambiguous: ${WITH_AGENTS}, ${TWIN}; give more of the id\n`,
        );
      });

      it('an unknown prefix: one line naming where it looked, exit 3', async () => {
        const run = await ccotel(['show', 'deadbeef']);
        expect(run.code).toBe(3);
        expect(run.stderr.split('\n')).toHaveLength(2);
        expect(run.stderr).toContain('no session id starts with deadbeef under ');
        expect(run.stderr).toContain(projects);
      });
    });
  },
);
