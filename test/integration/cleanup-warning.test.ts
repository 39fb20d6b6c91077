// `status` and `export` (the built binary) warn once when a session is within
// 3 days of Claude Code's cleanup (its transcript older than cleanupPeriodDays
// − 3, from a fake ~/.claude/settings.json, else 30) and no export or daemon
// recorded its turns as delivered.
import {
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runBuilt } from '../support/fault-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { ON_WINDOWS, POSIX_CHILD_ENV } from '../support/platform.js';

const HOOK = 'd266fdf5-b6a3-46aa-8627-920959a0109a';
const COMPACT = '8aa54c1d-5030-4491-be42-e0c416424b8a';
/** A /clear capture with no prompt turn: nothing to lose, never warned about. */
const EMPTY = '5c91b750-86c7-44d8-bb93-e5046ff2c302';
const DAY_MS = 86_400_000;

let base: string;
let env: NodeJS.ProcessEnv;
let receiver: OtlpReceiver;

const ccotel = (args: string[]): ReturnType<typeof runBuilt> => runBuilt(args, env);

const claudeDir = (): string => join(base, 'home', '.claude');

/** A session copied into ~/.claude/projects, its transcript last written `ageDays` ago. */
function session(scenario: string, id: string, ageDays: number): void {
  const project = join(claudeDir(), 'projects', scenario);
  mkdirSync(project, { recursive: true });
  cpSync(join('fixtures/real-layout', scenario, `${id}.jsonl`), join(project, `${id}.jsonl`));
  const when = new Date(Date.now() - ageDays * DAY_MS);
  utimesSync(join(project, `${id}.jsonl`), when, when);
}

const warnings = (stderr: string): string[] =>
  stderr.split('\n').filter((l) => l.includes("Claude Code's cleanup"));

describe.skipIf(ON_WINDOWS)(
  `the cleanup warning, built CLI (${POSIX_CHILD_ENV}: ~/.claude/settings.json under a fake HOME; a symlink)`,
  () => {
    beforeAll(() => ensureBuilt(), 120_000);

    beforeEach(async () => {
      base = mkdtempSync(join(tmpdir(), 'ccotel-cleanup-'));
      env = {
        PATH: process.env.PATH ?? '',
        HOME: join(base, 'home'),
        XDG_STATE_HOME: join(base, 'state'),
      };
      receiver = await startOtlpReceiver();
    });

    afterEach(async () => {
      await receiver.stop();
      rmSync(base, { recursive: true, force: true });
    });

    describe("warning before Claude Code's cleanup", () => {
      it('default 30 days: a 28-day-old session not exported is named once; fresh ones are not', async () => {
        session('hook-stop', HOOK, 28);
        session('compact-command', COMPACT, 1);
        session('clear-command', EMPTY, 29);
        const run = await ccotel(['status']);
        expect(run.code).toBe(0);
        expect(warnings(run.stderr)).toEqual([
          `ccotel: 1 session is within 3 days of Claude Code's cleanup (cleanupPeriodDays 30) and not exported: ${HOOK}; run 'ccotel export' to keep them, or raise cleanupPeriodDays in Claude Code's settings.json`,
        ]);
        const dry = await ccotel(['export', '--dry-run']);
        expect(dry.code).toBe(0);
        expect(warnings(dry.stderr)).toHaveLength(1);
      });

      it('two sessions at risk: still one line, naming both', async () => {
        session('hook-stop', HOOK, 27.5);
        session('compact-command', COMPACT, 40);
        const run = await ccotel(['status']);
        const lines = warnings(run.stderr);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`2 sessions are within 3 days`);
        expect(lines[0]).toContain(`${COMPACT}, ${HOOK}`);
      });

      it('cleanupPeriodDays from settings.json moves the threshold', async () => {
        session('hook-stop', HOOK, 28);
        mkdirSync(claudeDir(), { recursive: true });
        writeFileSync(
          join(claudeDir(), 'settings.json'),
          JSON.stringify({ cleanupPeriodDays: 60 }),
        );
        expect(warnings((await ccotel(['status'])).stderr)).toEqual([]);
        session('compact-command', COMPACT, 58);
        const lines = warnings((await ccotel(['status'])).stderr);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`(cleanupPeriodDays 60) and not exported: ${COMPACT};`);
      });

      it('a settings.json that is not JSON is named, and 30 days apply', async () => {
        session('hook-stop', HOOK, 28);
        mkdirSync(claudeDir(), { recursive: true });
        writeFileSync(join(claudeDir(), 'settings.json'), '{ cleanupPeriodDays: 90 ');
        const run = await ccotel(['status']);
        expect(run.stderr).toContain(
          `settings.json: not valid JSON; cleanupPeriodDays taken as 30`,
        );
        expect(warnings(run.stderr)[0]).toContain('(cleanupPeriodDays 30)');
      });

      it('a transcript reached through two paths (a symlinked dir) is named once; a hard link under another name is its own session', async () => {
        session('hook-stop', HOOK, 28);
        const project = join(claudeDir(), 'projects', 'hook-stop');
        const COPY = '11111111-2222-4333-8444-555555555555';
        linkSync(join(project, `${HOOK}.jsonl`), join(project, `${COPY}.jsonl`));
        const alias = join(base, 'alias');
        symlinkSync(project, alias);
        const dry = await ccotel(['export', '--dry-run', project, alias]);
        expect(dry.code, dry.stderr).toBe(0);
        expect(warnings(dry.stderr)).toEqual([
          `ccotel: 2 sessions are within 3 days of Claude Code's cleanup (cleanupPeriodDays 30) and not exported: ${COPY}, ${HOOK}; run 'ccotel export' to keep them, or raise cleanupPeriodDays in Claude Code's settings.json`,
        ]);
      });

      it('once exported, neither export nor status warns', async () => {
        session('hook-stop', HOOK, 28);
        const exported = await ccotel(['export', '--endpoint', receiver.url]);
        expect(exported.code, exported.stderr).toBe(0);
        expect(receiver.spans().length).toBeGreaterThan(0);
        expect(warnings(exported.stderr)).toEqual([]);
        expect(warnings((await ccotel(['status'])).stderr)).toEqual([]);
      });

      it('a daemon that delivered the session counts as delivered', async () => {
        session('hook-stop', HOOK, 28);
        const watch = await ccotel(['watch', '--once', '--backfill', '--endpoint', receiver.url]);
        expect(watch.code, watch.stderr).toBe(0);
        expect(receiver.spans().length).toBeGreaterThan(0);
        expect(warnings((await ccotel(['status'])).stderr)).toEqual([]);
      });
    });
  },
);

describe('the cleanup check and export records', () => {
  it('does not read a session export knows delivered in full, and warns of it without that', async () => {
    const { cleanupWarnings } = await import('../../src/app/export/cleanup-warning.js');
    const dir = mkdtempSync(join(tmpdir(), 'ccotel-cleanup-delivered-'));
    try {
      const project = join(dir, '.claude', 'projects', 'hook-stop');
      mkdirSync(project, { recursive: true });
      const main = join(project, `${HOOK}.jsonl`);
      cpSync(join('fixtures/real-layout', 'hook-stop', `${HOOK}.jsonl`), main);
      const when = new Date(Date.now() - 28 * DAY_MS);
      utimesSync(main, when, when);
      const check = (delivered?: Set<string>) =>
        cleanupWarnings({
          roots: [project],
          stateDir: join(dir, 'state'),
          now: Date.now(),
          ...(delivered === undefined ? {} : { delivered }),
        });
      // No state file: its turns are not recorded, so it is at risk.
      expect(await check()).toHaveLength(1);
      expect(await check(new Set([main]))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
