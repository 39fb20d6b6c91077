// One ccotel per state dir: two daemons on one dir would each send every span,
// two exports would both send what neither had recorded yet. Real processes
// for the daemons (the built binary), the real receiver, real lock files.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCcotel } from '../support/run-cli.js';
import { waitUntil } from '../support/wait-until.js';
import { cleanExport, exportCorpus } from '../support/export-run.js';
import { cliEnv, spawnCli, watchFlags, type CliProcess } from '../support/cli-process.js';
import {
  CLI,
  createMatrix,
  ensureBuilt,
  keyOf,
  makeCorpus,
  tally,
  type Corpus,
} from '../support/fault-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

const matrix = createMatrix('state-lock');
let base: string;
let corpus: Corpus;
let expected: DecodedSpan[];
const procs: CliProcess[] = [];

describe.skipIf(ON_WINDOWS)(
  'the state lock between processes (skipped on Windows: stops daemons with SIGTERM and SIGKILL)',
  () => {
    beforeAll(async () => {
      ensureBuilt();
      base = await mkdtemp(join(tmpdir(), 'ccotel-lock-'));
      corpus = await makeCorpus(base, 0);
      const reference = await cleanExport(corpus.root, join(base, 'ref-state'));
      expect(reference.run.code, reference.run.stderr).toBe(0);
      expected = reference.spans;
    }, 120_000);

    afterAll(async () => {
      await Promise.all(procs.map((p) => p.stop('SIGKILL')));
      matrix.write();
      await rm(base, { recursive: true, force: true });
    });

    interface Watching {
      child: ChildProcess;
      stderr: () => string;
      exited: Promise<number | null>;
    }

    /** `ccotel watch` from dist/ over the corpus, logging at info (the default), on `stateDir`. */
    function watch(receiver: OtlpReceiver, stateDir: string, ...extra: string[]): Watching {
      const dirs = { projects: corpus.root, state: stateDir };
      const flags = watchFlags(receiver.url, dirs, { logLevel: 'info', idleTimeout: '2s' });
      const proc = spawnCli([CLI, 'watch', ...flags, ...extra], cliEnv(base));
      procs.push(proc);
      return { child: proc.child, stderr: proc.stderr, exited: proc.exited.then((e) => e.code) };
    }

    const all = (receiver: OtlpReceiver): boolean => {
      const got = new Set(receiver.spans().map(keyOf));
      return expected.every((s) => got.has(keyOf(s)));
    };

    const row = (name: string, received: DecodedSpan[], outcome: string, ok: boolean): void => {
      matrix.add({
        case: name,
        ...tally(expected, received),
        outcome,
        repeatsAllowed: 'none',
        seconds: 0,
        status: ok ? 'pass' : 'fail',
      });
    };

    describe('state dir lock', () => {
      it('two daemons on one state dir: the second refuses naming the first; nothing is sent twice', async () => {
        const receiver = await startOtlpReceiver();
        const other = await startOtlpReceiver();
        const stateDir = join(base, 'state-two-daemons');
        try {
          const first = watch(receiver, stateDir, '--backfill');
          await waitUntil(
            () => first.stderr().includes('"msg":"watching"'),
            20_000,
            'first daemon',
          );
          const second = watch(receiver, stateDir, '--backfill');
          const code = await second.exited;
          // An export meanwhile refuses the same way and sends nothing.
          const exporting = await runCcotel([
            'export',
            '--endpoint',
            other.url,
            '--state-dir',
            stateDir,
            corpus.root,
          ]);
          await waitUntil(() => all(receiver), 60_000, 'every span from the first daemon');
          first.child.kill('SIGTERM');
          await first.exited;
          const t = tally(expected, receiver.spans());
          const line = second.stderr().trim();
          row(
            'two daemons on one state dir',
            receiver.spans(),
            `second: exit ${code}, "${line.slice(0, 90)}"; export meanwhile: exit ${exporting.code}`,
            code === 1 && t.repeated === 0 && t.lost === 0 && exporting.code === 1,
          );
          expect(code).toBe(1);
          expect(line.split('\n')).toHaveLength(1);
          expect(line).toMatch(
            new RegExp(
              `^ccotel: state dir .* is in use by ccotel watch \\(pid ${first.child.pid},`,
            ),
          );
          expect(exporting.code).toBe(1);
          expect(exporting.stderr.trim().split('\n')).toHaveLength(1);
          expect(exporting.stderr).toContain(`ccotel watch (pid ${first.child.pid},`);
          expect(other.requests()).toHaveLength(0);
          expect(t.lost).toBe(0);
          expect(t.repeated).toBe(0);
          // Released on a clean stop.
          expect(existsSync(join(stateDir, 'ccotel.lock'))).toBe(false);
        } finally {
          await receiver.stop();
          await other.stop();
        }
      }, 120_000);

      it('two exports at once take turns: the second waits, then finds everything recorded', async () => {
        const receiver = await startOtlpReceiver();
        const stateDir = join(base, 'state-two-exports');
        try {
          const args = ['export', '--endpoint', receiver.url, '--state-dir', stateDir, corpus.root];
          const [a, b] = await Promise.all([runCcotel(args), runCcotel(args)]);
          const t = tally(expected, receiver.spans());
          const waited = [a, b].filter((r) => r.stderr.includes('waiting for the export')).length;
          row(
            'two exports at once',
            receiver.spans(),
            `exit ${a.code}, ${b.code}; ${waited} waited`,
            a.code === 0 && b.code === 0 && t.repeated === 0,
          );
          expect([a.code, b.code]).toEqual([0, 0]);
          expect(waited).toBe(1);
          expect(t.lost).toBe(0);
          expect(t.repeated).toBe(0);
        } finally {
          await receiver.stop();
        }
      }, 60_000);

      it('a stale lock (its process is gone) is taken over', async () => {
        const receiver = await startOtlpReceiver();
        const stateDir = join(base, 'state-stale');
        try {
          const dead = spawnSync(process.execPath, [
            '-e',
            'process.stdout.write(String(process.pid))',
          ]);
          const pid = Number(dead.stdout.toString());
          await mkdir(stateDir, { recursive: true, mode: 0o700 });
          const lock = join(stateDir, 'ccotel.lock');
          await writeFile(
            lock,
            JSON.stringify({ pid, command: 'watch', startedAt: 'then', token: 'old' }),
            { mode: 0o600 },
          );
          const run = await exportCorpus(receiver.url, stateDir, corpus.root);
          row(
            'stale lock (dead pid) taken over',
            receiver.spans(),
            `export exit ${run.code}`,
            run.code === 0,
          );
          expect(run.code, run.stderr).toBe(0);
          expect(tally(expected, receiver.spans()).lost).toBe(0);
          expect(existsSync(lock)).toBe(false);
        } finally {
          await receiver.stop();
        }
      }, 60_000);

      it('the lock names its holder; --once releases it; kill -9 leaves it and the next start takes it over', async () => {
        const receiver = await startOtlpReceiver();
        const stateDir = join(base, 'state-foreign');
        try {
          const first = watch(receiver, stateDir, '--once');
          expect(await first.exited).toBe(0);
          expect(existsSync(join(stateDir, 'ccotel.lock'))).toBe(false);
          // The lock is the holder's whole record: pid, command, start, token.
          const held = watch(receiver, stateDir);
          await waitUntil(() => held.stderr().includes('"msg":"watching"'), 20_000, 'daemon');
          const text = JSON.parse(await readFile(join(stateDir, 'ccotel.lock'), 'utf8')) as {
            pid: number;
            command: string;
          };
          expect(text).toMatchObject({ pid: held.child.pid, command: 'watch' });
          held.child.kill('SIGKILL');
          await held.exited;
          // kill -9 leaves it; the next start takes it over.
          expect(existsSync(join(stateDir, 'ccotel.lock'))).toBe(true);
          const next = watch(receiver, stateDir, '--once');
          expect(await next.exited).toBe(0);
        } finally {
          await receiver.stop();
        }
      }, 60_000);
    });
  },
);
