// `ccotel export` when the local side fails: the state file deleted, truncated
// or corrupted; the state dir unwritable or full; transcripts deleted,
// truncated or rewritten while the export reads them; a project dir it may not
// read. Counted like the delivery faults (test/faults/export-delivery.test.ts).
import { execFile, execFileSync } from 'node:child_process';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  stat,
  symlink,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCcotel, type CliRun } from '../support/run-cli.js';
import { cleanExport, exportCorpus } from '../support/export-run.js';
import {
  CLI,
  createMatrix,
  ensureBuilt,
  makeCorpus,
  tally,
  type Corpus,
  type Tally,
  nobodyCannotRun,
} from '../support/fault-harness.js';
import { ON_LINUX, ON_WINDOWS } from '../support/platform.js';

const matrix = createMatrix('export-local');
let base: string;

describe.skipIf(ON_WINDOWS)(
  'export, local faults (skipped on Windows: /dev/full, symlinks, chmod, sh and a POSIX environment for the built CLI)',
  () => {
    beforeAll(async () => {
      base = await mkdtemp(join(tmpdir(), 'ccotel-local-faults-'));
    });
    afterAll(async () => {
      matrix.write();
      await rm(base, { recursive: true, force: true });
    });

    let caseNo = 0;
    const exportTo = (
      receiver: OtlpReceiver,
      stateDir: string,
      root: string,
      ...extra: string[]
    ): Promise<CliRun> => exportCorpus(receiver.url, stateDir, root, ...extra);

    /** What a clean export of `root`, as it is now, sends. */
    async function reference(root: string): Promise<DecodedSpan[]> {
      caseNo += 1;
      const { run, spans } = await cleanExport(root, join(base, `ref-${caseNo}`));
      expect(run.code).toBe(0);
      return spans;
    }

    const oneLine = (run: CliRun): void => {
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(
        run.stderr
          .trim()
          .split('\n')
          .filter((l) => l !== '')
          .every((l) => l.startsWith('ccotel: ') || l.startsWith('warning: ')),
      ).toBe(true);
    };

    function record(
      name: string,
      t: Tally,
      outcome: string,
      repeatsAllowed: string,
      seconds: number,
      extraOk = true,
      /** Turns that changed on disk are resent updated: their repeats differ, by design. */
      updatesAllowed = false,
    ): void {
      const ok =
        extraOk &&
        t.lost === 0 &&
        (t.repeatedDiffering === 0 || updatesAllowed) &&
        t.unexpected === 0 &&
        t.mismatched === 0;
      matrix.add({
        case: name,
        ...t,
        outcome,
        repeatsAllowed,
        seconds: Math.round(seconds * 10) / 10,
        status: ok ? 'pass' : 'fail',
      });
    }

    async function fresh(
      copies = 0,
    ): Promise<{ corpus: Corpus; stateDir: string; receiver: OtlpReceiver }> {
      caseNo += 1;
      const dir = join(base, `case-${caseNo}`);
      await mkdir(dir);
      return {
        corpus: await makeCorpus(dir, copies),
        stateDir: join(dir, 'state'),
        receiver: await startOtlpReceiver(),
      };
    }

    describe('export: the state file', () => {
      const stateCases: [string, (file: string) => Promise<void>, RegExp | null][] = [
        ['deleted', (f) => unlink(f), null],
        [
          'truncated to half',
          async (f) => truncate(f, Math.floor((await stat(f)).size / 2)),
          /state file .* was unreadable \(invalid JSON.*moved it to .*\.corrupt-\d+/,
        ],
        ['emptied', (f) => truncate(f, 0), /was unreadable \(invalid JSON/],
        [
          'overwritten with random bytes',
          (f) => writeFile(f, Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7919) % 256))),
          /was unreadable \(invalid JSON/,
        ],
        [
          'given the wrong shape',
          (f) => writeFile(f, JSON.stringify({ version: 2, turns: [] })),
          /was unreadable \(unexpected shape\)/,
        ],
        [
          'given a non-string digest',
          (f) => writeFile(f, JSON.stringify({ version: 1, turns: { abc: 1 } })),
          /was unreadable \(unexpected shape\)/,
        ],
      ];
      it.each(stateCases)(
        '%s between runs: detected, reported, recovered by resending with the same ids',
        async (what, damage, note) => {
          const { corpus, stateDir, receiver } = await fresh();
          const started = performance.now();
          try {
            const first = await exportTo(receiver, stateDir, corpus.root);
            expect(first.code).toBe(0);
            const firstCount = receiver.spans().length;
            const file = join(stateDir, 'export-state.json');
            await damage(file);
            const second = await exportTo(receiver, stateDir, corpus.root);
            const expected = await reference(corpus.root);
            const t = tally(expected, receiver.spans());
            const moved = (await readdir(stateDir)).filter((n) => n.includes('.corrupt-'));
            record(
              `state file ${what}`,
              t,
              `exit ${first.code}→${second.code}; ${note === null ? 'no note (nothing to detect)' : second.stderr.includes('unreadable') ? 'reported; moved aside' : 'NOT reported'}`,
              'all spans once more (the state that said they were delivered is gone), byte-identical',
              (performance.now() - started) / 1000,
              second.code === 0 && (note === null || note.test(second.stderr)),
            );
            expect(second.code).toBe(0);
            oneLine(second);
            if (note !== null) {
              expect(second.stderr).toMatch(note);
              expect(moved).toHaveLength(1);
            } else expect(second.stderr).toBe('');
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
            expect(t.repeated).toBe(firstCount);
            // The new state is whole again: a third run sends nothing.
            const third = await exportTo(receiver, stateDir, corpus.root);
            expect(third.code).toBe(0);
            expect(receiver.spans().length).toBe(firstCount * 2);
          } finally {
            await receiver.stop();
          }
        },
      );
    });

    describe('export: the state dir', () => {
      // Root ignores permission bits, so "unwritable" is simulated with a state dir
      // whose parent is a regular file: every open and mkdir fails with ENOTDIR.
      it('unwritable (its parent is a regular file: ENOTDIR): one line, nothing sent, nothing lost once fixed', async () => {
        const { corpus, stateDir, receiver } = await fresh();
        const started = performance.now();
        try {
          await writeFile(`${stateDir}-file`, 'not a dir');
          const blocked = join(`${stateDir}-file`, 'state');
          const first = await exportTo(receiver, blocked, corpus.root);
          const sentWhileBroken = receiver.spans().length;
          const second = await exportTo(receiver, stateDir, corpus.root);
          const t = tally(await reference(corpus.root), receiver.spans());
          record(
            'state dir unwritable (ENOTDIR)',
            t,
            `exit ${first.code}→${second.code}; ${first.stderr.trim()}`.slice(0, 160),
            'none',
            (performance.now() - started) / 1000,
            first.code !== 0 && sentWhileBroken === 0,
          );
          expect(first.code).not.toBe(0);
          oneLine(first);
          expect(first.stderr).toContain(blocked);
          expect(first.stderr.trim().split('\n')).toHaveLength(1);
          expect(sentWhileBroken).toBe(0);
          expect(second.code).toBe(0);
          expect(t.lost).toBe(0);
          expect(t.repeated).toBe(0);
        } finally {
          await receiver.stop();
        }
      });

      // The state is written as <file>.tmp-<pid> and renamed; pointing that temp name at
      // /dev/full makes the write fail with ENOSPC after delivery, exactly like a full disk.
      // (A small tmpfs would need mount rights CI may not have.)
      it.skipIf(!ON_LINUX)(
        'full (ENOSPC while saving, after delivery): one line, exit 1; the re-run resends identical spans (Linux only: /dev/full)',
        async () => {
          const { corpus, stateDir, receiver } = await fresh();
          const started = performance.now();
          try {
            await mkdir(stateDir, { recursive: true, mode: 0o700 });
            const tmp = join(stateDir, `export-state.json.tmp-${process.pid}`);
            await symlink('/dev/full', tmp);
            const first = await exportTo(receiver, stateDir, corpus.root);
            const delivered = receiver.spans().length;
            await unlink(tmp);
            const second = await exportTo(receiver, stateDir, corpus.root);
            const t = tally(await reference(corpus.root), receiver.spans());
            record(
              'state dir full (ENOSPC on save)',
              t,
              `exit ${first.code}→${second.code}; ${first.stderr.trim()}`.slice(0, 160),
              'all spans of the run whose state could not be saved, byte-identical',
              (performance.now() - started) / 1000,
              first.code === 1,
            );
            expect(first.code).toBe(1);
            oneLine(first);
            expect(first.stderr).toMatch(/ENOSPC/);
            expect(delivered).toBeGreaterThan(0);
            expect(second.code).toBe(0);
            expect(t.lost).toBe(0);
            expect(t.repeatedDiffering).toBe(0);
            expect(t.repeated).toBe(delivered);
          } finally {
            await receiver.stop();
          }
        },
      );

      it.skipIf(!ON_LINUX)(
        '--out on a full disk (/dev/full, Linux only): one line, exit 1',
        async () => {
          const { corpus, stateDir } = await fresh();
          const run = await runCcotel([
            'export',
            '--out',
            '/dev/full',
            '--state-dir',
            stateDir,
            '--quiet',
            corpus.root,
          ]);
          expect(run.code).toBe(1);
          oneLine(run);
          expect(run.stderr.trim().split('\n')).toHaveLength(1);
          expect(run.stderr).toMatch(/ENOSPC/);
        },
      );
    });

    describe('export: transcripts changing while being read', () => {
      // Export reads sessions one by one and awaits each batch before reading on, so
      // files changed when the first batch arrives are changed before they are read.
      async function changeAfterFirstBatch(
        name: string,
        change: (corpus: Corpus) => void,
        restore: ((corpus: Corpus) => Promise<void>) | null,
      ): Promise<{ runs: CliRun[]; t: Tally }> {
        const { corpus, stateDir, receiver } = await fresh(2);
        const started = performance.now();
        try {
          let changed = false;
          receiver.onSpans(() => {
            if (changed) return;
            changed = true;
            change(corpus);
          });
          const runs = [await exportTo(receiver, stateDir, corpus.root)];
          if (runs[0]?.code !== 0) runs.push(await exportTo(receiver, stateDir, corpus.root));
          if (restore !== null) {
            await restore(corpus);
            runs.push(await exportTo(receiver, stateDir, corpus.root));
          }
          const t = tally(await reference(corpus.root), receiver.spans(), 'last');
          record(
            name,
            t,
            `exit ${runs.map((r) => r.code).join('→')}; ${(runs[0]?.stderr.trim().split('\n')[0] ?? '').slice(0, 120) || 'no message'}`,
            restore === null
              ? 'turns not recorded because the run stopped, byte-identical'
              : 'turns that changed are resent updated (same ids); others byte-identical',
            (performance.now() - started) / 1000,
            runs[0]?.code === 0,
            restore !== null,
          );
          for (const run of runs) oneLine(run);
          return { runs, t };
        } finally {
          await receiver.stop();
        }
      }

      // Claude Code deletes old transcripts on its own (cleanupPeriodDays); an export
      // running then must skip a vanished file, not stop everything.
      it('a transcript deleted after it was listed: skipped with a warning, the rest exported', async () => {
        const gone: string[] = [];
        const { runs, t } = await changeAfterFirstBatch(
          'transcripts deleted while reading',
          (corpus) => {
            for (const f of corpus.mains.slice(-2)) {
              gone.push(f);
              execFileSync('rm', ['-f', f]);
            }
          },
          null,
        );
        expect(t.lost).toBe(0);
        expect(t.repeatedDiffering).toBe(0);
        expect(runs[0]?.code).toBe(0);
        expect(runs[0]?.stderr).toContain(gone[0]);
      });

      it('a transcript truncated mid-line after it was listed: the complete lines are exported; the rest once it is whole', async () => {
        const saved = new Map<string, Buffer>();
        const { runs, t } = await changeAfterFirstBatch(
          'transcripts truncated while reading',
          (corpus) => {
            for (const f of corpus.mains.slice(-3)) {
              const bytes = execFileSync('cat', [f]);
              saved.set(f, bytes);
              execFileSync('truncate', ['-s', String(Math.floor(bytes.length * 0.6)), f]);
            }
          },
          async () => {
            for (const [f, bytes] of saved) await writeFile(f, bytes);
          },
        );
        expect(runs.every((r) => r.code === 0)).toBe(true);
        expect(t.lost).toBe(0);
        expect(t.mismatched).toBe(0);
      });

      it('a transcript rewritten with other content after it was listed: exported as it now is', async () => {
        const { runs, t } = await changeAfterFirstBatch(
          'transcripts rewritten while reading',
          (corpus) => {
            const [a, b] = corpus.mains.slice(-2);
            if (a === undefined || b === undefined) return;
            execFileSync('cp', [
              join('fixtures/real', 'marot_spotter__test_fixtures_transcripts__short.jsonl'),
              a,
            ]);
            execFileSync('sh', ['-c', `printf '{"type":"user","broken' > '${b}'`]);
          },
          null,
        );
        expect(runs[0]?.code).toBe(0);
        expect(t.lost).toBe(0);
        expect(t.repeatedDiffering).toBe(0);
      });
    });

    describe('export: a project dir without read permission', () => {
      // Root reads anything, so this runs the built CLI as the unprivileged user
      // `nobody` (setpriv): a project dir mode 000 is then really unreadable.
      const nobodyProblem = nobodyCannotRun();
      const nobody = nobodyProblem === null;
      if (!nobody)
        console.log(
          `skipped (project dir unreadable): ${nobodyProblem}; root bypasses permission bits`,
        );
      const cli = CLI;
      it.skipIf(!nobody)(
        'is reported, not silently skipped; once readable, everything arrives',
        async () => {
          ensureBuilt();
          const { corpus, stateDir, receiver } = await fresh(1);
          const started = performance.now();
          try {
            // Let nobody reach the corpus and write its state.
            for (let p = corpus.root; p.startsWith(base); p = join(p, '..')) await chmod(p, 0o755);
            await chmod(base, 0o755);
            await mkdir(stateDir, { recursive: true });
            execFileSync('chown', ['-R', '65534:65534', stateDir]);
            const hidden = corpus.projects[1] as string;
            await chmod(hidden, 0o000);
            // Asynchronous: a synchronous spawn would block the in-process receiver.
            const runAsync = (): Promise<CliRun> =>
              new Promise((resolve) => {
                const args = [
                  '--reuid=65534',
                  '--regid=65534',
                  '--clear-groups',
                  process.execPath,
                  cli,
                  'export',
                  '--endpoint',
                  receiver.url,
                  '--state-dir',
                  stateDir,
                  '--quiet',
                  corpus.root,
                ];
                execFile(
                  'setpriv',
                  args,
                  { env: { PATH: process.env.PATH, HOME: '/nonexistent' }, timeout: 60_000 },
                  (err, stdout, stderr) => {
                    resolve({
                      code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1,
                      stdout,
                      stderr,
                    });
                  },
                );
              });
            const first = await runAsync();
            const sentHidden = receiver.spans().length;
            await chmod(hidden, 0o755);
            const second = await runAsync();
            const t = tally(await reference(corpus.root), receiver.spans());
            const reported = first.stderr.includes(hidden);
            record(
              'project dir unreadable (run as nobody)',
              t,
              `exit ${first.code}→${second.code}; ${reported ? 'reported' : 'NOT reported: silently skipped'}`,
              'none',
              (performance.now() - started) / 1000,
              reported,
            );
            expect(sentHidden).toBeGreaterThan(0);
            expect(second.code).toBe(0);
            expect(t.lost).toBe(0);
            expect(first.stderr, 'the unreadable dir is named on stderr').toContain(hidden);
          } finally {
            await receiver.stop();
          }
        },
        120_000,
      );
      if (!nobody) {
        console.log(
          `skipped: cannot run as nobody (${nobodyProblem}); root bypasses permission bits`,
        );
        matrix.skip('project dir unreadable', `skipped: ${nobodyProblem}`);
      }
    });
  },
);
