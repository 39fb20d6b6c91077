// What ccotel leaves on the machine and opens on the network: state files are
// 0600 in a 0700 dir, it never listens on a port, and it never writes inside
// ~/.claude (Claude Code's own tree).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import {
  chmod,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { exportCorpus } from '../support/export-run.js';
import { runCcotel } from '../support/run-cli.js';
import { CLI, ensureBuilt, watchArgv } from '../support/fault-harness.js';
import { startWatch } from '../../src/app/watch/daemon.js';
import { DEFAULTS } from '../../src/core/settings.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import { createJsonLogger } from '../../src/adapters/logger.js';
import { ON_LINUX, ON_WINDOWS } from '../support/platform.js';

const SUBAGENT_FIXTURE = 'fixtures/hand/v21-subagents-meta';
const SID = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';
let dir: string;
let receiver: OtlpReceiver;

describe.skipIf(ON_WINDOWS)('files and ports (skipped on Windows: POSIX file modes, /proc)', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'ccotel-files-'));
    receiver = await startOtlpReceiver();
  }, 120_000);

  afterAll(async () => {
    await receiver.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
  const octal = (m: number): string => `0${m.toString(8)}`;

  /** Every file and dir under `root` with its mode. */
  async function modes(root: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const walk = async (d: string): Promise<void> => {
      out.set(d, await modeOf(d));
      for (const e of await readdir(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else out.set(p, await modeOf(p));
      }
    };
    await walk(root);
    return out;
  }

  describe('state files', () => {
    it('export creates its state dir 0700 and its state file 0600 (under a umask of 022)', async () => {
      const project = join(dir, 'p1', 'projects', 'proj');
      await cp(SUBAGENT_FIXTURE, project, { recursive: true });
      const stateHome = join(dir, 'p1', 'xdg-state');
      // Default location: $XDG_STATE_HOME/ccotel, every level created by ccotel.
      const run = await runCcotel(['export', '--endpoint', receiver.url, '--quiet', project], {
        XDG_STATE_HOME: stateHome,
      });
      expect(run.code, run.stderr).toBe(0);
      const found = await modes(join(stateHome, 'ccotel'));
      expect([...found.keys()].some((p) => p.endsWith('export-state.json'))).toBe(true);
      for (const [path, mode] of found) {
        const isDir = (await stat(path)).isDirectory();
        expect(octal(mode), path).toBe(isDir ? '0700' : '0600');
      }
      expect(octal(await modeOf(stateHome))).toBe('0700');
    });

    it('a corrupt state file is moved aside still 0600', async () => {
      const project = join(dir, 'p2', 'proj');
      await cp(SUBAGENT_FIXTURE, project, { recursive: true });
      const state = join(dir, 'p2', 'state');
      expect((await exportCorpus(receiver.url, state, project)).code).toBe(0);
      const { writeFile } = await import('node:fs/promises');
      await writeFile(join(state, 'export-state.json'), '{', { mode: 0o600 });
      expect((await exportCorpus(receiver.url, state, project)).code).toBe(0);
      for (const [path, mode] of await modes(state)) {
        const isDir = (await stat(path)).isDirectory();
        expect(octal(mode), path).toBe(isDir ? '0700' : '0600');
      }
    });

    it('an existing state dir open to others (0755) is tightened to 0700, with a warning', async () => {
      const project = join(dir, 'p4', 'proj');
      await cp(SUBAGENT_FIXTURE, project, { recursive: true });
      const state = join(dir, 'p4', 'state');
      await mkdir(state, { recursive: true });
      await chmod(state, 0o755);
      const run = await runCcotel([
        'export',
        '--endpoint',
        receiver.url,
        '--state-dir',
        state,
        '--quiet',
        project,
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(octal(await modeOf(state))).toBe('0700');
      expect(run.stderr).toMatch(
        /^ccotel: warning: state dir .*p4\/state was mode 0755; tightened to 0700/m,
      );
    });

    it('show --html writes 0600 (under a umask of 022) and replaces a file whole', async () => {
      const html = join(dir, 'p5', 'w.html');
      await mkdir(join(dir, 'p5'), { recursive: true });
      await writeFile(html, 'old', { mode: 0o644 });
      const run = await runCcotel(['show', '--html', html, join(SUBAGENT_FIXTURE, `${SID}.jsonl`)]);
      expect(run.code, run.stderr).toBe(0);
      expect(octal(await modeOf(html))).toBe('0600');
      expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/i);
      // No temp file left beside it.
      expect(await readdir(join(dir, 'p5'))).toEqual(['w.html']);
    });

    it('--out files are 0600', async () => {
      const project = join(dir, 'p3', 'proj');
      await cp(SUBAGENT_FIXTURE, project, { recursive: true });
      const out = join(dir, 'p3', 'out.jsonl');
      expect(
        (
          await runCcotel([
            'export',
            '--out',
            out,
            '--state-dir',
            join(dir, 'p3', 'state'),
            '--quiet',
            project,
          ])
        ).code,
      ).toBe(0);
      expect(octal(await modeOf(out))).toBe('0600');
    });

    it('watch state and spill files are 0600 in a 0700 dir', async () => {
      const project = join(dir, 'p4', 'projects', 'proj');
      await cp(SUBAGENT_FIXTURE, project, { recursive: true });
      const state = join(dir, 'p4', 'state');
      const daemon = await startWatch({
        settings: {
          ...DEFAULTS,
          endpoint: `${receiver.url}/v1/traces`,
          projectsDirs: [join(dir, 'p4', 'projects')],
          stateDir: state,
        },
        prices: await loadPriceTable(),
        resource: buildResource({ serviceName: 'claude-code', attributes: {} }),
        log: createJsonLogger(() => undefined, 'error'),
        backfill: true,
        once: true,
      });
      expect(await daemon.done).toBe(0);
      const found = await modes(state);
      expect(found.size).toBeGreaterThan(1);
      for (const [path, mode] of found) {
        const isDir = (await stat(path)).isDirectory();
        expect(octal(mode), path).toBe(isDir ? '0700' : '0600');
      }
    });
  });

  // ---- network ----

  /** Socket inodes a process holds open. */
  function socketInodes(pid: number): Set<string> {
    const out = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m?.[1] !== undefined) out.add(m[1]);
      } catch {
        // fd closed meanwhile
      }
    }
    return out;
  }

  /** Listening TCP sockets and bound UDP sockets among `inodes`, from /proc/net. */
  function listening(inodes: Set<string>): string[] {
    const found: string[] = [];
    for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
      const path = `/proc/net/${table}`;
      if (!existsSync(path)) continue;
      for (const line of readFileSync(path, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        const [local, , st, inode] = [cols[1], cols[2], cols[3], cols[9]];
        if (inode === undefined || !inodes.has(inode)) continue;
        // TCP 0A = LISTEN; any UDP socket of the process is bound, i.e. can receive.
        if (table.startsWith('udp') || st === '0A') found.push(`${table} ${local} state ${st}`);
      }
    }
    return found;
  }

  /** The built CLI; `watch` through watchArgv. */
  function spawnCli(
    args: string[],
    env: NodeJS.ProcessEnv,
  ): { child: ChildProcess; output: () => string } {
    let text = '';
    const argv = args[0] === 'watch' ? watchArgv(args.slice(1)) : [CLI, ...args];
    const child = spawn(process.execPath, argv, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (text += c.toString()));
    return { child, output: () => text };
  }

  const exited = (child: ChildProcess): Promise<number | null> =>
    child.exitCode !== null
      ? Promise.resolve(child.exitCode)
      : new Promise((r) => child.once('exit', (code) => r(code)));

  describe.skipIf(!ON_LINUX)(
    'nothing listens on a network port (Linux only: sockets read from /proc)',
    () => {
      it('the probe sees a listener where there is one (this process runs the receiver)', () => {
        expect(
          listening(socketInodes(process.pid)).some(
            (l) => l.startsWith('tcp') && l.endsWith('state 0A'),
          ),
        ).toBe(true);
      });

      it('ccotel export, while a request is in flight, holds no listening or bound socket', async () => {
        const project = join(dir, 'n1', 'proj');
        await cp(SUBAGENT_FIXTURE, project, { recursive: true });
        receiver.script([{ hang: true }]);
        const { child, output } = spawnCli(
          [
            'export',
            '--endpoint',
            receiver.url,
            '--timeout',
            '20000',
            '--state-dir',
            join(dir, 'n1', 'state'),
            '--quiet',
            project,
          ],
          { HOME: join(dir, 'n1') },
        );
        try {
          // Wait until the request is on the wire (the receiver holds it unanswered).
          const deadline = Date.now() + 20_000;
          while (
            receiver.requests().filter((r) => r.status === 0).length === 0 &&
            Date.now() < deadline
          )
            await new Promise((r) => setTimeout(r, 50));
          expect(child.pid).toBeDefined();
          const inodes = socketInodes(child.pid as number);
          expect(inodes.size, `${output()}`).toBeGreaterThan(0); // the outgoing connection is there
          expect(listening(inodes)).toEqual([]);
        } finally {
          child.kill('SIGKILL');
          await exited(child);
          receiver.setMode('accept');
        }
      }, 60_000);

      it('ccotel watch holds no listening or bound socket', async () => {
        const projects = join(dir, 'n2', 'projects');
        await cp(SUBAGENT_FIXTURE, join(projects, 'proj'), { recursive: true });
        const { child, output } = spawnCli(
          [
            'watch',
            '--endpoint',
            receiver.url,
            '--projects-dir',
            projects,
            '--state-dir',
            join(dir, 'n2', 'state'),
            '--backfill',
          ],
          { HOME: join(dir, 'n2') },
        );
        try {
          await new Promise((r) => setTimeout(r, 3000));
          expect(child.exitCode, output()).toBeNull();
          expect(listening(socketInodes(child.pid as number))).toEqual([]);
        } finally {
          child.kill('SIGKILL');
          await exited(child);
        }
      }, 60_000);
    },
  );

  // ---- ~/.claude stays untouched ----

  interface Entry {
    mode: number;
    size: number;
    mtimeMs: number;
    ino: number;
  }
  function snapshot(root: string): Map<string, Entry> {
    const out = new Map<string, Entry>();
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        const s = lstatSync(p);
        out.set(p, { mode: s.mode, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino });
        if (s.isDirectory()) walk(p);
      }
    };
    const s = lstatSync(root);
    out.set(root, { mode: s.mode, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino });
    walk(root);
    return out;
  }

  describe('nothing is written inside ~/.claude', () => {
    it('export, show, show --html, status (and watch --once when there) leave the tree byte for byte as it was', async () => {
      const home = join(dir, 'home');
      const claude = join(home, '.claude');
      await mkdir(join(claude, 'projects'), { recursive: true });
      await cp(SUBAGENT_FIXTURE, join(claude, 'projects', '-home-dev-payments'), {
        recursive: true,
      });
      await cp('fixtures/real-layout/hook-stop', join(claude, 'projects', '-home-dev-hooks'), {
        recursive: true,
      });
      const before = snapshot(claude);
      const env = { HOME: home };
      const runs: [string[], number][] = [
        [['export', '--endpoint', receiver.url, '--quiet'], 0],
        [['export', '--endpoint', receiver.url, '--quiet', '--force'], 0],
        [['show', SID], 0],
        [['show', '--json', SID], 0],
        [['show', '--html', join(home, 'page.html'), SID], 0],
        [['status'], 0],
        [['watch', '--once', '--backfill', '--endpoint', receiver.url], 0],
      ];
      for (const [args, code] of runs) {
        const { child, output } = spawnCli(args, env);
        const status = await exited(child);
        expect(status, `${args.join(' ')}: ${output()}`).toBe(code);
      }
      const after = snapshot(claude);
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      for (const [path, entry] of before) expect(after.get(path), path).toEqual(entry);
      // The state went where it belongs instead.
      expect(existsSync(join(home, '.local', 'state', 'ccotel', 'export-state.json'))).toBe(true);
      expect(receiver.spans().length).toBeGreaterThan(0);
    }, 120_000);
  });
});
