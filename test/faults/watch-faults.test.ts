// `ccotel watch` under the same faults as export (test/faults/export-*.test.ts),
// through the watcher's own harness (test/integration/watch-harness.ts), plus
// a randomized kill -9 soak of the real process: ≥ 20 rounds of SIGKILL at
// random moments while transcripts are being written, then a restart; nothing
// lost, repeats byte-identical.
import { execFile, spawnSync } from 'node:child_process';
import {
  appendFile,
  chmod,
  mkdir,
  readdir,
  readFile,
  rename,
  symlink,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver, type Scripted } from '../support/otlp-receiver.js';
import { runCcotel } from '../support/run-cli.js';
import { waitUntil } from '../support/wait-until.js';
import { cleanExport, exportCorpus } from '../support/export-run.js';
import { cliEnv, spawnCli, watchFlags, type CliProcess } from '../support/cli-process.js';
import {
  createMatrix,
  ensureBuilt,
  keyOf,
  makeCorpus,
  NO_SPANS,
  OUTAGE_MS,
  renameIds,
  SOAK,
  strayRepeats,
  tally,
  unacknowledgedTraces,
  watchArgv,
  type Tally,
  nobodyCannotRun,
} from '../support/fault-harness.js';
import { FUZZ_SEED } from '../support/fuzz-config.js';
import * as watchHarness from '../integration/watch-harness.js';
import { runWatchCommand } from '../../src/cli/commands/watch.js';
import { exitCodeOf } from '../../src/cli/exit-code.js';
// The soak's timing is replayable with CCOTEL_FUZZ_SEED: a seeded PRNG.
import { mulberry32 } from '../../bench/lib/prng.mjs';
import { ON_LINUX, ON_WINDOWS } from '../support/platform.js';

/** The fixtures' last turns have no turn_duration: their roots leave once the session is quiet this long. */
const QUIET_MS = 1500;

const matrix = createMatrix('watch');
describe.skipIf(ON_WINDOWS)(
  'watch, faults (skipped on Windows: kill -9 soak, /dev/full, chmod and a POSIX environment for the built CLI)',
  () => {
    afterAll(() => matrix.write());

    type Harness = typeof watchHarness;

    /** What a clean `ccotel export` of `root` delivers. */
    async function reference(root: string, stateDir: string): Promise<DecodedSpan[]> {
      const { run, spans } = await cleanExport(root, stateDir);
      expect(run.code, run.stderr).toBe(0);
      return spans;
    }

    interface Scene {
      h: Harness;
      dirs: Awaited<ReturnType<Harness['tempDirs']>>;
      receiver: OtlpReceiver;
      started: number;
    }

    /** One case's scene (harness, temp dirs, receiver, start time), cleaned up after `body` whether it passes or not. */
    async function inScene(body: (scene: Scene) => Promise<void>): Promise<void> {
      const h = watchHarness;
      const dirs = await h.tempDirs();
      const receiver = await startOtlpReceiver();
      try {
        await body({ h, dirs, receiver, started: performance.now() });
      } finally {
        await receiver.stop();
        await dirs.cleanup();
      }
    }

    /** fixtures/real (and `copies` renamed copies) in the scene, and what a clean export of it delivers. */
    async function realCorpus(dirs: Scene['dirs'], copies = 0) {
      const corpus = await makeCorpus(dirs.base, copies);
      return { corpus, expected: await reference(corpus.root, join(dirs.base, 'ref-state')) };
    }

    const received = (receiver: OtlpReceiver, expected: DecodedSpan[]): boolean => {
      const got = new Set(receiver.spans().map(keyOf));
      return expected.every((s) => got.has(keyOf(s)));
    };

    interface Row {
      name: string;
      t: Tally;
      outcome: string;
      repeatsAllowed: string;
      started: number;
      ok: boolean;
    }
    function record({ name, t, outcome, repeatsAllowed, started, ok }: Row): void {
      matrix.add({
        case: name,
        ...t,
        outcome,
        repeatsAllowed,
        seconds: Math.round((performance.now() - started) / 100) / 10,
        status: ok ? 'pass' : 'fail',
      });
    }

    describe('watch: collector faults', () => {
      /** Daemon with --backfill over fixtures/real, receiver scripted by `fault`; waits for every span. */
      async function deliveryCase(
        name: string,
        fault: (receiver: OtlpReceiver) => Promise<void> | void,
        opts: { timeoutMs?: number; during?: (receiver: OtlpReceiver) => Promise<void> } = {},
      ): Promise<void> {
        await inScene(async ({ h, dirs, receiver, started }) => {
          let running: Awaited<ReturnType<Harness['runDaemon']>> | null = null;
          try {
            const { expected } = await realCorpus(dirs);
            await fault(receiver);
            running = await h.runDaemon(
              h.settingsFor(receiver, dirs, {
                timeoutMs: opts.timeoutMs ?? 800,
                idleTimeoutMs: QUIET_MS,
              }),
              { backfill: true },
            );
            await opts.during?.(receiver);
            await waitUntil(
              () => received(receiver, expected),
              90_000,
              `all ${expected.length} spans`,
            );
            await running.daemon.settled();
            const t = tally(expected, receiver.spans(), 'last');
            const stray = strayRepeats(receiver.spans(), unacknowledgedTraces(receiver)).length;
            const statuses = receiver.requests().map((r) => r.status);
            const outage = running.logs.lines.filter((l) =>
              /collector (unreachable|reachable again)/.test(l.msg),
            ).length;
            const ok =
              t.lost === 0 && t.repeatedDiffering === 0 && stray === 0 && t.unexpected === 0;
            record({
              name,
              t,
              outcome: `${statuses.length} requests (${statuses.slice(0, 8).join(',')}${statuses.length > 8 ? ',…' : ''}); ${outage} outage log lines`,
              repeatsAllowed: 'byte-identical spans of an unacknowledged batch',
              started,
              ok,
            });
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
            expect(stray).toBe(0);
            expect(t.unexpected).toBe(0);
            expect(outage).toBeLessThanOrEqual(2); // logged once when it starts and once when it ends
          } finally {
            if (running !== null) await running.daemon.stop('test end');
          }
        });
      }
      const script = (s: Scripted[]) => (r: OtlpReceiver) => r.script(s);

      it('503 with Retry-After: 1, twice', () =>
        deliveryCase(
          'watch: 503 Retry-After 1 ×2',
          script([
            { status: 503, retryAfter: '1' },
            { status: 503, retryAfter: '1' },
          ]),
        ));
      it('429 with Retry-After: 1', () =>
        deliveryCase('watch: 429 Retry-After 1', script([{ status: 429, retryAfter: '1' }])));
      it('500 (kept, retried slowly)', () =>
        deliveryCase('watch: 500 ×2', script([{ status: 500 }, { status: 500 }])));
      it('502 and 504 without Retry-After', () =>
        deliveryCase('watch: 502 then 504', script([{ status: 502 }, { status: 504 }])));
      it('an answer slower than the timeout', () =>
        deliveryCase(
          'watch: 200 after 2.5 s, timeout 800 ms',
          script([{ status: 200, delayMs: 2500 }]),
        ));
      it('connection resets', () =>
        deliveryCase('watch: TCP reset ×2', script([{ reset: true }, { reset: true }])));
      it('no answer', () =>
        deliveryCase('watch: no answer (hang), timeout 800 ms', script([{ hang: true }])));
      it(
        `the receiver down for ${OUTAGE_MS / 1000} s${SOAK ? ' (soak)' : ''}`,
        () =>
          deliveryCase(`watch: receiver down ${OUTAGE_MS / 1000} s`, (r) => r.stop(), {
            during: async (r) => {
              await new Promise((res) => setTimeout(res, OUTAGE_MS));
              await r.restart();
            },
          }),
        OUTAGE_MS + 120_000,
      );

      // 400/413: the daemon drops the batch for good ("retrying the same bytes cannot help").
      // Those turns are not recorded as exported, so a later `ccotel export` delivers them.
      it('400 (refused for good): not retried by watch; a later export delivers the refused turns', async () => {
        await inScene(async ({ h, dirs, receiver, started }) => {
          const { corpus, expected } = await realCorpus(dirs);
          receiver.script([{ status: 400, body: 'refused' }]);
          const settings = h.settingsFor(receiver, dirs, {
            timeoutMs: 800,
            idleTimeoutMs: QUIET_MS,
          });
          const running = await h.runDaemon(settings, { backfill: true });
          await running.logs.waitFor(
            (l) => l.msg === 'collector refused spans; they will not be retried',
            20_000,
          );
          await running.daemon.settled();
          await running.daemon.stop('test end');
          const afterWatch = tally(expected, receiver.spans());
          const run = await exportCorpus(receiver.url, dirs.state, corpus.root);
          const t = tally(expected, receiver.spans());
          record({
            name: 'watch: 400 on the first batch, then export',
            t,
            outcome: `watch lost ${afterWatch.lost} (refused); export exit ${run.code} then lost ${t.lost}`,
            repeatsAllowed: 'byte-identical spans of turns the collector refused',
            started,
            ok: t.lost === 0 && t.repeatedDiffering === 0,
          });
          expect(run.code).toBe(0);
          expect(t.lost).toBe(0);
          expect(t.repeatedDiffering).toBe(0);
        });
      }, 60_000);
    });

    describe('watch: collectors that accept only part', () => {
      it('413 above 20 spans: batches are halved until they pass; every span arrives', async () => {
        await inScene(async ({ h, dirs, receiver, started }) => {
          const { expected } = await realCorpus(dirs);
          receiver.limitSpans(20);
          const running = await h.runDaemon(
            h.settingsFor(receiver, dirs, { timeoutMs: 800, idleTimeoutMs: QUIET_MS }),
            { backfill: true },
          );
          await waitUntil(
            () => received(receiver, expected),
            90_000,
            `all ${expected.length} spans`,
          );
          await running.daemon.settled();
          await running.daemon.stop('test end');
          const t = tally(expected, receiver.spans(), 'last');
          const statuses = receiver.requests().map((r) => r.status);
          const tooBig = receiver.requests().filter((r) => r.status === 200 && r.spans.length > 20);
          record({
            name: 'watch: 413 above 20 spans (split)',
            t,
            outcome: `${statuses.length} requests, ${statuses.filter((x) => x === 413).length} answered 413`,
            repeatsAllowed: 'none',
            started,
            ok: t.lost === 0 && t.repeated === 0 && tooBig.length === 0,
          });
          expect(t.lost).toBe(0);
          expect(t.repeated).toBe(0);
          expect(tooBig).toEqual([]);
          expect(statuses).toContain(413);
        });
      }, 120_000);

      for (const protocol of ['http/protobuf', 'http/json'] as const)
        it(`partial_success (${protocol}): one warning, not retried; a later export delivers the rest, repeats identical`, async () => {
          await inScene(async ({ h, dirs, receiver, started }) => {
            const { corpus, expected } = await realCorpus(dirs);
            receiver.setMode({ rejectSpans: (n) => Math.ceil(n / 5), message: 'quota exceeded' });
            const settings = h.settingsFor(receiver, dirs, { timeoutMs: 800, protocol });
            const running = await h.runDaemon(settings, { backfill: true });
            const warning = await running.logs.waitFor(
              (l) => l.msg.startsWith('collector rejected spans'),
              30_000,
            );
            await running.daemon.settled();
            await running.daemon.stop('test end');
            const warnings = running.logs.lines.filter((l) =>
              l.msg.startsWith('collector rejected spans'),
            ).length;
            const afterWatch = tally(expected, receiver.spans());
            receiver.setMode('accept');
            const run = await exportCorpus(receiver.url, dirs.state, corpus.root);
            const t = tally(expected, receiver.spans());
            const stray = strayRepeats(receiver.spans(), unacknowledgedTraces(receiver)).length;
            record({
              name: `watch: partial_success 1 in 5 (${protocol}), then export`,
              t,
              outcome: `watch: ${warnings} warning(s), ${afterWatch.lost} not kept; export exit ${run.code}, then lost ${t.lost}`,
              repeatsAllowed: 'byte-identical spans of turns in a partly rejected request',
              started,
              ok: warnings === 1 && run.code === 0 && t.lost === 0 && t.repeatedDiffering === 0,
            });
            expect(warning).toMatchObject({ level: 'warn', error: 'quota exceeded' });
            expect(warnings).toBe(1);
            expect(afterWatch.lost).toBeGreaterThan(0);
            expect(run.code, run.stderr).toBe(0);
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
            expect(stray).toBe(0);
          });
        }, 120_000);
    });

    describe('watch: state', () => {
      const damages: [string, (file: string) => Promise<void>, boolean][] = [
        ['deleted', (f) => unlink(f), false],
        [
          'truncated to half',
          async (f) => truncate(f, Math.floor((await readFile(f)).length / 2)),
          true,
        ],
        ['overwritten with garbage', (f) => writeFile(f, '\u0000\u0001garbage{'), true],
      ];
      it.each(damages)(
        'watch-state.json %s between runs: detected, nothing lost, repeats identical',
        async (what, damage, reported) => {
          await inScene(async ({ h, dirs, receiver, started }) => {
            const { corpus, expected } = await realCorpus(dirs);
            const settings = h.settingsFor(receiver, dirs, {
              timeoutMs: 800,
              idleTimeoutMs: QUIET_MS,
            });
            const first = await h.runDaemon(settings, { backfill: true });
            await waitUntil(() => received(receiver, expected), 60_000, 'first delivery');
            await first.daemon.settled();
            await first.daemon.stop('test end');
            await damage(join(dirs.state, 'watch-state.json'));
            const second = await h.runDaemon(settings);
            await second.daemon.ready;
            await second.daemon.settled();
            // New work after the restart is followed as usual.
            const extra = join(corpus.projects[0] as string, 'zz-after-restart.jsonl');
            await appendFile(
              extra,
              renameIds(
                await readFile(
                  'fixtures/real/marot_spotter__test_fixtures_transcripts__short.jsonl',
                  'utf8',
                ),
                7,
              ),
            );
            const expectedAll = await reference(corpus.root, join(dirs.base, 'ref-state-2'));
            await waitUntil(
              () =>
                received(
                  receiver,
                  expectedAll.filter(
                    (s) => s.attributes['gen_ai.conversation.id'] === 'zz-after-restart',
                  ),
                ),
              30_000,
              'the new session',
            );
            await second.daemon.stop('test end');
            const noted = second.logs.lines.some(
              (l) => l.msg === 'watch state was unreadable; starting afresh',
            );
            const t = tally(expectedAll, receiver.spans(), 'last');
            record({
              name: `watch: watch-state.json ${what}`,
              t,
              outcome: `${noted ? 'reported, moved aside' : 'no note'}; restarted without --backfill`,
              repeatsAllowed: 'byte-identical',
              started,
              ok: t.lost === 0 && t.repeatedDiffering === 0 && noted === reported,
            });
            expect(noted).toBe(reported);
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
          });
        },
        120_000,
      );

      it('a state dir that cannot exist (its parent is a regular file: ENOTDIR) stops watch at start with one line', async () => {
        const h = watchHarness;
        const dirs = await h.tempDirs();
        try {
          await writeFile(join(dirs.base, 'file'), 'x');
          const blocked = join(dirs.base, 'file', 'state');
          let stderr = '';
          let code: number;
          try {
            code = await runWatchCommand(
              [
                '--once',
                '--endpoint',
                'http://127.0.0.1:9',
                '--projects-dir',
                dirs.projects,
                '--state-dir',
                blocked,
              ],
              {
                stdout: () => undefined,
                stderr: (t) => (stderr += t),
                env: { PATH: process.env.PATH },
                isTTY: false,
                columns: 100,
                stopSignal: new Promise(() => undefined),
              },
            );
          } catch (err) {
            // What runCli would print: one line, and unexpected errors as such.
            const userCode = exitCodeOf(err);
            code = userCode ?? 1;
            stderr += `ccotel: ${userCode !== null ? '' : 'unexpected error: '}${(err as Error).message.split('\n')[0]}\n`;
          }
          record({
            name: 'watch: state dir unwritable (ENOTDIR)',
            t: NO_SPANS,
            outcome: `exit ${code}; ${stderr.trim().split('\n').pop() ?? ''}`.slice(0, 160),
            repeatsAllowed: 'none',
            started: performance.now(),
            ok: code !== 0 && stderr.includes(blocked),
          });
          expect(code).not.toBe(0);
          expect(stderr).toContain(blocked);
        } finally {
          await dirs.cleanup();
        }
      });

      // As for export: the state's temp file pointed at /dev/full makes every save fail with ENOSPC.
      it.skipIf(!ON_LINUX)(
        'a full disk (ENOSPC on every state save): delivery goes on, the failure is logged once, saving resumes (Linux only: /dev/full)',
        async () => {
          await inScene(async ({ h, dirs, receiver, started }) => {
            const { expected } = await realCorpus(dirs);
            await mkdir(dirs.state, { recursive: true, mode: 0o700 });
            const traps = ['watch-state.json', 'export-state.json'].map((n) =>
              join(dirs.state, `${n}.tmp-${process.pid}`),
            );
            for (const t of traps) await symlink('/dev/full', t);
            const running = await h.runDaemon(
              h.settingsFor(receiver, dirs, { timeoutMs: 800, idleTimeoutMs: QUIET_MS }),
              {
                backfill: true,
              },
            );
            await waitUntil(
              () => received(receiver, expected),
              60_000,
              'delivery while the disk is full',
            );
            await running.daemon.settled();
            const failures = running.logs.lines.filter(
              (l) => l.msg === 'cannot save state; will retry',
            ).length;
            for (const t of traps) await unlink(t);
            await running.daemon.stop('test end');
            const saved = (await readdir(dirs.state)).includes('watch-state.json');
            const t = tally(expected, receiver.spans(), 'last');
            record({
              name: 'watch: state dir full (ENOSPC on save)',
              t,
              outcome: `${failures} 'cannot save state' log line(s); state saved after space returned: ${saved}`,
              repeatsAllowed: 'none',
              started,
              ok: t.lost === 0 && failures === 1 && saved,
            });
            expect(t.lost).toBe(0);
            expect(failures).toBe(1);
            expect(saved).toBe(true);
          });
        },
        90_000,
      );
    });

    describe('watch: transcripts changing under it', () => {
      it('deleted, truncated mid-line and rewritten while being written: the daemon goes on; nothing of the final files is lost', async () => {
        await inScene(async ({ h, dirs, receiver, started }) => {
          const settings = h.settingsFor(receiver, dirs, {
            timeoutMs: 800,
            idleTimeoutMs: QUIET_MS,
          });
          const running = await h.runDaemon(settings);
          await running.daemon.ready;
          const names = [
            'marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl',
            'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
            'marot_spotter__test_fixtures_transcripts__short.jsonl',
            'd-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
          ];
          const sessions = await Promise.all(
            names.map(async (n, i) => ({
              file: join(dirs.project, `s${i}.jsonl`),
              lines: (await readFile(join('fixtures/real', n), 'utf8'))
                .split('\n')
                .filter((l) => l.trim() !== ''),
            })),
          );
          const [del, cut, rewrite, steady] = sessions as [
            (typeof sessions)[0],
            (typeof sessions)[0],
            (typeof sessions)[0],
            (typeof sessions)[0],
          ];
          const half = (n: number): number => Math.floor(n / 2);
          await Promise.all(
            sessions.map((s) => h.writeLines(s.file, s.lines.slice(0, half(s.lines.length)), 2)),
          );
          // Mid-stream: one deleted, one cut mid-line, one replaced by other content (a new inode).
          await unlink(del.file);
          const cutText = await readFile(cut.file, 'utf8');
          await truncate(cut.file, Math.floor(cutText.length * 0.7));
          await writeFile(`${rewrite.file}.new`, `${renameIds(rewrite.lines.join('\n'), 11)}\n`);
          await rename(`${rewrite.file}.new`, rewrite.file);
          await new Promise((r) => setTimeout(r, 300));
          // The writer of the cut file finishes its line and goes on; the others go on too.
          await writeFile(cut.file, `${cut.lines.slice(0, half(cut.lines.length)).join('\n')}\n`);
          await Promise.all([
            h.writeLines(cut.file, cut.lines.slice(half(cut.lines.length)), 2),
            h.writeLines(steady.file, steady.lines.slice(half(steady.lines.length)), 2),
          ]);
          const expected = await reference(dirs.projects, join(dirs.base, 'ref-state'));
          await waitUntil(() => received(receiver, expected), 60_000, 'the final files’ spans');
          await running.daemon.settled();
          const alive = await Promise.race([
            running.daemon.done.then(() => false),
            new Promise<boolean>((r) => setTimeout(() => r(true), 50)),
          ]);
          await running.daemon.stop('test end');
          const t = tally(expected, receiver.spans(), 'last');
          const errors = running.logs.lines.filter((l) => l.level === 'error').map((l) => l.msg);
          record({
            name: 'watch: transcripts deleted/truncated/rewritten',
            t,
            outcome: `daemon alive: ${alive}; ${errors.length} error log lines; unexpected = spans of content since deleted or replaced`,
            repeatsAllowed: 'byte-identical',
            started,
            ok: alive && t.lost === 0 && t.repeatedDiffering === 0,
          });
          expect(alive).toBe(true);
          expect(t.lost).toBe(0);
          expect(t.repeatedDiffering).toBe(0);
          expect(errors).toEqual([]);
        });
      }, 120_000);

      it('malformed lines (invalid UTF-8, NUL padding, a torn line) are logged once each with file and line, rate-limited per file, and counted', async () => {
        await inScene(async ({ h, dirs, receiver, started }) => {
          const running = await h.runDaemon(h.settingsFor(receiver, dirs, { timeoutMs: 800 }));
          await running.daemon.ready;
          const lines = (
            await readFile(
              'fixtures/real/marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl',
              'utf8',
            )
          )
            .split('\n')
            .filter((l) => l.trim() !== '');
          const file = join(dirs.project, 'bad.jsonl');
          const cut = Math.floor(lines.length / 2);
          await h.writeLines(file, lines.slice(0, cut), 1);
          // Invalid UTF-8, NUL padding (a crash mid-write), a torn line, then the rest.
          await appendFile(file, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
          await appendFile(file, Buffer.concat([Buffer.alloc(64), Buffer.from('\n')]));
          await appendFile(file, `${(lines[cut] ?? '').slice(0, 40)}\n`);
          await h.writeLines(file, lines.slice(cut), 1);
          // A file of nothing but garbage: logged up to the per-file limit, counted in full.
          const junk = join(dirs.project, 'junk.jsonl');
          await writeFile(
            junk,
            Array.from({ length: 30 }, (_, i) => `not json ${i}`).join('\n') + '\n',
          );
          const exportRun = await runCcotel(['export', '--dry-run', '--quiet', dirs.projects]);
          const exportWarned = new Set(
            [...exportRun.stderr.matchAll(/^warning: (.+):(\d+): /gm)].map(
              (m) => `${m[1]}:${m[2]}`,
            ),
          );
          const isLine = (l: { msg: string }): boolean =>
            l.msg === 'malformed transcript line; skipped';
          await waitUntil(
            () => running.logs.lines.filter((l) => isLine(l) && l.file === file).length >= 3,
            20_000,
            'three warnings for bad.jsonl',
          );
          await waitUntil(
            () => running.logs.lines.some((l) => l.msg.startsWith('more malformed lines')),
            20_000,
            'the rate-limit note for junk.jsonl',
          );
          await running.daemon.settled();
          await running.daemon.stop('test end');
          const logged = running.logs.lines.filter(isLine);
          const keys = logged.map((l) => `${String(l.file)}:${String(l.line)}`);
          const stopped = running.logs.lines.find((l) => l.msg === 'stopped');
          const badKeys = keys.filter((k) => k.startsWith(file));
          record({
            name: 'watch: malformed lines logged',
            t: NO_SPANS,
            outcome: `${badKeys.length} warnings for bad.jsonl (export: ${[...exportWarned].filter((k) => k.startsWith(file)).length}); junk.jsonl ${keys.length - badKeys.length} logged of 30; stopped.malformedLines ${String(stopped?.malformedLines)}`,
            repeatsAllowed: 'none',
            started,
            ok: new Set(keys).size === keys.length && stopped?.malformedLines === 33,
          });
          expect(new Set(keys).size, 'each line logged once').toBe(keys.length);
          expect(new Set(badKeys)).toEqual(
            new Set([...exportWarned].filter((k) => k.startsWith(file))),
          );
          expect(badKeys).toHaveLength(3);
          expect(keys.length - badKeys.length).toBe(10);
          expect(stopped?.malformedLines).toBe(33);
          for (const l of logged) expect(l.level).toBe('warn');
        });
      }, 60_000);

      const nobodyProblem = nobodyCannotRun();
      const nobody = nobodyProblem === null;
      if (!nobody)
        console.log(
          `skipped (project dir unreadable): ${nobodyProblem}; root bypasses permission bits`,
        );
      it.skipIf(!nobody)(
        'a project dir it may not read (run as nobody): reported, not silently skipped',
        async () => {
          ensureBuilt();
          await inScene(async ({ dirs, receiver, started }) => {
            const { corpus, expected } = await realCorpus(dirs, 1);
            for (let p = corpus.root; p.length > 1; p = join(p, '..'))
              await chmod(p, 0o755).catch(() => undefined);
            await mkdir(dirs.state, { recursive: true });
            spawnSync('chown', ['-R', '65534:65534', dirs.state]);
            const hidden = corpus.projects[1] as string;
            await chmod(hidden, 0o000);
            const args = [
              '--once',
              '--backfill',
              '--endpoint',
              receiver.url,
              '--projects-dir',
              corpus.root,
              '--state-dir',
              dirs.state,
            ];
            const run = (): Promise<{ code: number; stderr: string }> =>
              new Promise((resolve) => {
                execFile(
                  'setpriv',
                  [
                    '--reuid=65534',
                    '--regid=65534',
                    '--clear-groups',
                    process.execPath,
                    ...watchArgv(args),
                  ],
                  { env: { PATH: process.env.PATH, HOME: '/nonexistent' }, timeout: 60_000 },
                  (err, _out, stderr) => {
                    resolve({
                      code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1,
                      stderr,
                    });
                  },
                );
              });
            const first = await run();
            await chmod(hidden, 0o755);
            const t0 = tally(expected, receiver.spans());
            const reported = first.stderr.includes(hidden);
            record({
              name: 'watch: project dir unreadable (run as nobody)',
              t: t0,
              outcome: `--once exit ${first.code}; ${reported ? 'reported' : 'NOT reported: silently skipped'}`,
              repeatsAllowed: 'none',
              started,
              ok: reported,
            });
            expect(first.stderr, 'the unreadable dir is named').toContain(hidden);
          });
        },
        120_000,
      );
    });

    // ---- kill -9 soak ----

    const ROUNDS = Number(process.env.CCOTEL_KILL_ROUNDS ?? (SOAK ? 60 : 20));

    describe('watch: kill -9 before the first state save', () => {
      // Found by the soak (seed 2): "first start" is decided by watch-state.json being
      // absent. A daemon killed before it first saves leaves none, so the next start is a
      // first start again, and every line written meanwhile is taken for history
      // (baseline = current size) and never sent. Lost: the turns written in between.
      it('the turns written before the kill are sent after the restart', async () => {
        ensureBuilt();
        await inScene(async ({ dirs, receiver, started }) => {
          const procs: CliProcess[] = [];
          const start = (): CliProcess => {
            const flags = watchFlags(receiver.url, dirs, { logLevel: 'info', idleTimeout: '2s' });
            const proc = spawnCli(watchArgv(flags), cliEnv(dirs.base));
            procs.push(proc);
            return proc;
          };
          try {
            const first = start();
            await first.watching;
            const firstLog = first.stderr();
            // A whole session appears at once (a turn completes), and the daemon dies at once.
            const text = await readFile(
              join('fixtures/real', 'marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl'),
              'utf8',
            );
            await writeFile(join(dirs.project, 'live.jsonl'), text);
            await first.stop('SIGKILL');
            const savedBeforeKill = (
              await readdir(dirs.state).catch(() => [] as string[])
            ).includes('watch-state.json');
            const second = start();
            await second.watching;
            const secondLog = second.stderr();
            const expected = await reference(dirs.projects, join(dirs.base, 'ref-state'));
            await waitUntil(
              () => received(receiver, expected),
              15_000,
              'the session written before the kill',
            ).catch(() => undefined);
            await second.stop('SIGTERM');
            const t = tally(expected, receiver.spans(), 'last');
            const firstStarts = [firstLog, secondLog]
              .map((l) => /"firstStart":(true|false)/.exec(l)?.[1] ?? '?')
              .join(', ');
            record({
              name: 'watch: kill -9 before the first state save',
              t,
              outcome: `state saved before the kill: ${savedBeforeKill}; firstStart: ${firstStarts}`,
              repeatsAllowed: 'byte-identical',
              started,
              ok: t.lost === 0,
            });
            expect(t.lost).toBe(0);
          } finally {
            await Promise.all(procs.map((p) => p.stop('SIGKILL')));
          }
        });
      }, 60_000);
    });

    describe('watch: randomized kill -9 soak', () => {
      it(`${ROUNDS} rounds of kill -9 at random moments while transcripts are written: nothing lost, repeats identical (seed ${FUZZ_SEED})`, async () => {
        ensureBuilt();
        await inScene(async ({ dirs, receiver, started }) => {
          const random = mulberry32(FUZZ_SEED);
          const procs: CliProcess[] = [];
          // A short idle timeout: open turns (the fixtures end mid-turn) are flushed, marked incomplete, as export sends them.
          const flags = watchFlags(receiver.url, dirs, { logLevel: 'info', idleTimeout: '3s' });
          const start = (): CliProcess => {
            const proc = spawnCli(watchArgv(flags), cliEnv(dirs.base));
            procs.push(proc);
            return proc;
          };
          try {
            // Six sessions (three real transcripts, each also as a renamed copy), written line by line at random paces.
            const sources = [
              'marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl',
              'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
              'd-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
            ];
            const sessions: { file: string; lines: string[] }[] = [];
            for (const [i, name] of sources.entries()) {
              const text = await readFile(join('fixtures/real', name), 'utf8');
              for (const copy of [0, 1])
                sessions.push({
                  file: join(dirs.project, `k${i}-${copy}.jsonl`),
                  lines: (copy === 0 ? text : renameIds(text, 20 + i))
                    .split('\n')
                    .filter((l) => l.trim() !== ''),
                });
            }
            let written = 0;
            // Paced so that the writing lasts about as long as the kill rounds do.
            const spanMs = ROUNDS * 900;
            // The daemon is up before the first line is written: on a first start, what is
            // already there is history (sent only with --backfill, which is export's job).
            let current = start();
            await current.watching;
            const writing = Promise.all(
              sessions.map(async (s) => {
                for (const line of s.lines) {
                  await appendFile(s.file, `${line}\n`);
                  written += 1;
                  await new Promise((r) =>
                    setTimeout(r, (spanMs / s.lines.length) * (0.2 + random() * 1.6)),
                  );
                }
              }),
            );
            let kills = 0;
            let killedBeforeWatching = 0;
            for (let round = 0; round < ROUNDS; round += 1) {
              const proc = round === 0 ? current : start();
              // Some kills land during startup (before the first scan is done), most while running.
              if (random() < 0.2) {
                await new Promise((r) => setTimeout(r, random() * 300));
                killedBeforeWatching += 1;
              } else {
                await proc.watching;
                await new Promise((r) => setTimeout(r, 100 + random() * 1200));
              }
              await proc.stop('SIGKILL');
              kills += 1;
            }
            current = start();
            const totalLines = sessions.reduce((n, x) => n + x.lines.length, 0);
            const linesAtLastKill = written;
            await writing;
            const last = current;
            await last.watching;
            const expected = await reference(dirs.projects, join(dirs.base, 'ref-state'));
            let timedOut = false;
            await waitUntil(
              () => received(receiver, expected),
              30_000,
              'every span after the last restart',
            ).catch(() => {
              timedOut = true;
            });
            await last.stop('SIGTERM');
            const t = tally(expected, receiver.spans(), 'last');
            // Each process' stderr, in start order (each one exits before the next starts).
            const logs = procs.map((p) => p.stderr());
            // More than one "first start" means a restart after a kill before the first
            // state save: the case 'kill -9 before the first state save' isolates it.
            const firstStartCount = logs.filter((l) => l.includes('"firstStart":true')).length;
            if (t.lost > 0 || t.unexpected > 0) {
              const got = new Set(receiver.spans().map(keyOf));
              const want = new Set(expected.map(keyOf));
              const firstStarts = logs
                .map((l) => /"firstStart":(true|false)/.exec(l)?.[1] ?? 'killed before scan')
                .join(' ');
              console.log(`soak diagnostics: firstStart per process: ${firstStarts}`);
              console.log(
                `lost: ${expected
                  .filter((s) => !got.has(keyOf(s)))
                  .map(
                    (s) =>
                      `${s.name} ${s.attributes['gen_ai.conversation.id']} ${s.traceId.slice(0, 8)}`,
                  )
                  .join('; ')}`,
              );
              console.log(
                `unexpected: ${receiver
                  .spans()
                  .filter((s) => !want.has(keyOf(s)))
                  .map(
                    (s) =>
                      `${s.name} ${s.attributes['gen_ai.conversation.id']} ${s.traceId.slice(0, 8)} incomplete=${String(s.attributes['claude_code.incomplete'] ?? false)}`,
                  )
                  .join('; ')}`,
              );
            }
            record({
              name: `watch: kill -9 soak, ${kills} rounds (seed ${FUZZ_SEED})`,
              t,
              outcome: `${kills} SIGKILLs (${killedBeforeWatching} during startup), ${linesAtLastKill}/${totalLines} lines written by the last; ${firstStartCount} first start(s); ${receiver.requests().length} requests${timedOut ? '; TIMED OUT waiting' : ''}`,
              repeatsAllowed: 'byte-identical (spans in flight or not yet recorded at the kill)',
              started,
              ok: t.lost === 0 && t.repeatedDiffering === 0 && t.unexpected === 0,
            });
            expect(kills).toBeGreaterThanOrEqual(20);
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
            expect(t.unexpected).toBe(0);
          } finally {
            await Promise.all(procs.map((p) => p.stop('SIGKILL')));
          }
        });
      }, 300_000);
    });
  },
);
