// Where the built binary finds transcripts with no --projects-dir: a fake HOME
// with sessions only under ~/.config/claude/projects, only under
// ~/.claude/projects, under both (one a symlink of the other: counted once;
// or two real dirs: both read), and a WSL-style /mnt/c/… dir passed
// explicitly. show, export, watch, status and config check all run as
// processes of dist/cli/main.js.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runBuilt } from '../support/fault-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { ON_WINDOWS } from '../support/platform.js';

const LAYOUT = 'fixtures/real-layout';
/** Two projects, three sessions (5bd47723 has sub-agents in its session dir). */
const CLEAR = ['5bd47723-950c-4c20-917e-77acb15dc4ea', '5c91b750-86c7-44d8-bb93-e5046ff2c302'];
const COMPACT = ['8aa54c1d-5030-4491-be42-e0c416424b8a'];
const HOOK = ['d266fdf5-b6a3-46aa-8627-920959a0109a'];
/** A session with no prompt turn (a /clear capture): listed and counted, but it has no spans. */
const UNTRACED = '5c91b750-86c7-44d8-bb93-e5046ff2c302';
const traced = (ids: string[]): string[] => ids.filter((id) => id !== UNTRACED).sort();
/** After every fixture's last event. */
const NOW = '2026-09-01T00:00:00.000Z';

const ccotel = (args: string[], env: NodeJS.ProcessEnv): ReturnType<typeof runBuilt> =>
  runBuilt(args, { PATH: process.env.PATH ?? '', ...env });

let base: string;
let receiver: OtlpReceiver;

describe.skipIf(ON_WINDOWS)(
  'default projects dirs of the built CLI (skipped on Windows: a fake HOME and a symlink; Windows reads %USERPROFILE%, tested in test/unit/adapters/files/projects-dir.test.ts)',
  () => {
    beforeAll(() => ensureBuilt(), 120_000);

    beforeEach(async () => {
      base = mkdtempSync(join(tmpdir(), 'ccotel-locations-'));
      receiver = await startOtlpReceiver();
    });

    afterEach(async () => {
      await receiver.stop();
      rmSync(base, { recursive: true, force: true });
    });

    /** A fake home; `XDG_CONFIG_HOME` unset so that ~/.config is the XDG default. */
    function home(): NodeJS.ProcessEnv {
      return { HOME: join(base, 'home') };
    }

    function project(root: string, scenario: string, name = scenario): void {
      cpSync(join(LAYOUT, scenario), join(root, name), { recursive: true });
    }

    const xdgRoot = (): string => join(base, 'home', '.config', 'claude', 'projects');
    const dotRoot = (): string => join(base, 'home', '.claude', 'projects');

    async function statusIds(env: NodeJS.ProcessEnv, extra: string[] = []): Promise<string[]> {
      const run = await ccotel(
        ['status', '--json', '--hours', '100000', '--now', NOW, ...extra],
        env,
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout) as { sessionId: string }[]).map((r) => r.sessionId).sort();
    }

    /** Sessions `export --out` counted, and those it wrote spans of (read back from its OTLP/JSON). */
    async function exported(
      env: NodeJS.ProcessEnv,
      extra: string[] = [],
    ): Promise<{ sessions: number; ids: string[] }> {
      const out = join(base, `out-${Math.random().toString(36).slice(2)}.jsonl`);
      const run = await ccotel(['export', '--out', out, ...extra], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const sessions = Number(/: (\d+) sessions,/.exec(run.stdout)?.[1]);
      const ids = new Set<string>();
      for (const m of readFileSync(out, 'utf8').matchAll(
        /"key":"gen_ai\.conversation\.id","value":\{"stringValue":"([^"]+)"/g,
      ))
        ids.add(m[1] ?? '');
      return { sessions, ids: [...ids].sort() };
    }

    /** Sessions `watch --once --backfill` delivered to the receiver. */
    async function watchedIds(env: NodeJS.ProcessEnv, extra: string[] = []): Promise<string[]> {
      const state = join(base, `state-${Math.random().toString(36).slice(2)}`);
      const args = [
        'watch',
        '--once',
        '--backfill',
        '--endpoint',
        receiver.url,
        '--state-dir',
        state,
      ];
      const run = await ccotel([...args, ...extra], env);
      expect(run.code, run.stderr).toBe(0);
      const ids = new Set(receiver.spans().map((s) => s.attributes['gen_ai.conversation.id']));
      ids.delete(undefined);
      return [...ids].map(String).sort();
    }

    async function showsSession(env: NodeJS.ProcessEnv, target: string, id: string): Promise<void> {
      const run = await ccotel(['show', '--json', target], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { sessionId: string }).sessionId).toBe(id);
    }

    /** Every command reads exactly `ids` (sorted) from the default locations. */
    async function everyCommandFinds(env: NodeJS.ProcessEnv, ids: string[]): Promise<void> {
      const sorted = [...ids].sort();
      expect(await statusIds(env)).toEqual(sorted);
      expect(await exported(env)).toEqual({ sessions: ids.length, ids: traced(ids) });
      expect(await watchedIds(env)).toEqual(traced(ids));
      for (const id of sorted) await showsSession(env, id, id);
    }

    describe('default projects dirs', () => {
      it('only ~/.config/claude/projects: every command finds its sessions', async () => {
        project(xdgRoot(), 'clear-command');
        project(xdgRoot(), 'compact-command');
        await everyCommandFinds(home(), [...CLEAR, ...COMPACT]);
        const check = await ccotel(['config', 'check'], home());
        expect(check.stdout).toMatch(/\.config\/claude\/projects +read +\[~\/\.config\/claude/);
        expect(check.stdout).toMatch(/\.claude\/projects +missing/);
      }, 120_000);

      it('only ~/.claude/projects: every command finds its sessions', async () => {
        project(dotRoot(), 'clear-command');
        await everyCommandFinds(home(), CLEAR);
      }, 120_000);

      it('$XDG_CONFIG_HOME moves the XDG location', async () => {
        const xdg = join(base, 'xdg');
        project(join(xdg, 'claude', 'projects'), 'hook-stop');
        const env = { ...home(), XDG_CONFIG_HOME: xdg };
        expect(await statusIds(env)).toEqual(HOOK);
        const check = await ccotel(['config', 'check'], env);
        expect(check.stdout).toContain(`  ${join(xdg, 'claude', 'projects')}`);
        expect(check.stdout).toMatch(/ read +\[\$XDG_CONFIG_HOME\/claude/);
      }, 60_000);

      it('both, one a symlink of the other: each session counted once', async () => {
        project(xdgRoot(), 'clear-command');
        project(xdgRoot(), 'compact-command');
        mkdirSync(join(base, 'home', '.claude'), { recursive: true });
        symlinkSync(xdgRoot(), dotRoot());
        await everyCommandFinds(home(), [...CLEAR, ...COMPACT]);
        const dry = await ccotel(['export', '--dry-run'], home());
        expect(dry.stdout).toMatch(/^dry run: 3 sessions,/);
        const check = await ccotel(['config', 'check', '--json'], home());
        const dirs = (
          JSON.parse(check.stdout) as { projectsDirs: { path: string; state: string }[] }
        ).projectsDirs;
        expect(dirs.map((d) => d.state)).toEqual(['read', `same as ${xdgRoot()}, read once`]);
      }, 120_000);

      it('both, two real dirs: the sessions of both', async () => {
        project(xdgRoot(), 'clear-command');
        project(dotRoot(), 'hook-stop');
        await everyCommandFinds(home(), [...CLEAR, ...HOOK]);
      }, 120_000);

      it('$CLAUDE_CONFIG_DIR as a comma list replaces the defaults', async () => {
        project(dotRoot(), 'hook-stop');
        const a = join(base, 'a');
        const b = join(base, 'b');
        project(join(a, 'projects'), 'clear-command');
        project(join(b, 'projects'), 'compact-command');
        const env = { ...home(), CLAUDE_CONFIG_DIR: `${a}, ${b}` };
        expect(await statusIds(env)).toEqual([...CLEAR, ...COMPACT].sort());
        await showsSession(env, COMPACT[0] ?? '', COMPACT[0] ?? '');
      }, 60_000);

      it('no projects dir at all: status names where it looked', async () => {
        const run = await ccotel(['status'], home());
        expect(run.code).toBe(3);
        expect(run.stderr).toContain(xdgRoot());
        expect(run.stderr).toContain(dotRoot());
      }, 60_000);
    });

    describe('a Windows-side projects dir read from WSL (--projects-dir /mnt/c/…)', () => {
      it('every command finds the sessions of a drive-letter project', async () => {
        // What WSL shows of C:\Users\jane\.claude\projects, made in a temp dir.
        const mnt = join(base, 'mnt', 'c', 'Users', 'jane', '.claude', 'projects');
        project(mnt, 'clear-command', 'C--Users-jane-code-app');
        // A transcript that names no cwd: status reads it from the drive-letter dir name.
        const noCwd = join(mnt, 'D--src-tool', `${COMPACT[0] ?? ''}.jsonl`);
        mkdirSync(dirname(noCwd));
        const lines = readFileSync(
          join(LAYOUT, 'compact-command', `${COMPACT[0] ?? ''}.jsonl`),
          'utf8',
        );
        writeFileSync(noCwd, lines.replace(/"cwd":"[^"]*",/g, ''));
        project(dotRoot(), 'hook-stop');
        const flag = ['--projects-dir', mnt];
        const env = home();
        const all = [...CLEAR, ...COMPACT];
        expect(await statusIds(env, flag)).toEqual([...all].sort());
        expect(await exported(env, flag)).toEqual({ sessions: 3, ids: traced(all) });
        expect(await watchedIds(env, flag)).toEqual(traced(all));
        const status = await ccotel(
          ['status', '--json', '--hours', '100000', '--now', NOW, ...flag],
          env,
        );
        const cwds = Object.fromEntries(
          (JSON.parse(status.stdout) as { sessionId: string; cwd: string | null }[]).map((r) => [
            r.sessionId,
            r.cwd,
          ]),
        );
        expect(cwds).toEqual({
          [CLEAR[0] ?? '']: '/tmp/workspace',
          [CLEAR[1] ?? '']: '/tmp/workspace',
          [COMPACT[0] ?? '']: 'D:\\src\\tool',
        });
        const show = await ccotel(['show', '--json', ...flag, CLEAR[1] ?? ''], env);
        expect(show.code, show.stderr).toBe(0);
        const check = await ccotel(['config', 'check', ...flag], env);
        expect(check.stdout).toContain(`${mnt}  read  [--projects-dir]`);
      }, 120_000);
    });
  },
);
