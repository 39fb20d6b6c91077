// Every benchmark script, run on a tiny corpus as a correctness smoke test:
// the scripts run, their JSON results have their fields, the generated corpus
// is deterministic and valid (a rewritten copy converts to the same span tree
// as the fixtures it came from), and every conversion path yields the same
// spans as the plain path. No timing is asserted: the figures come from
// `npm run bench:*` on a quiet machine (docs/benchmarks.md). Needs dist/
// (`npm test` builds first).
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSessions } from '../../src/adapters/files/session-files.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { sessionSpans } from '../support/whole-session.js';
import { parseRecord } from '../../src/core/transcript/parse-record.js';
import { ON_LINUX } from '../support/platform.js';

/** .ci/run installs tmux and sets CCOTEL_REQUIRE_TMUX: there the screen bench runs, or fails. */
const TMUX = spawnSync('tmux', ['-V']).status === 0;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let work: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function bench(script: string, args: string[], timeoutMs = 170_000): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(repoRoot, 'bench', script), ...args],
      {
        cwd: repoRoot,
        timeout: timeoutMs,
        maxBuffer: 16 << 20,
        env: { ...process.env, CCOTEL_BENCH_RESULTS: join(work, 'results') },
      },
      (err, stdout, stderr) =>
        done({
          code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1,
          stdout,
          stderr,
        }),
    );
  });
}

const result = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(work, 'results', `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;

function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else hash.update(relative(dir, p)).update('\0').update(readFileSync(p)).update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** The shape of every span of a corpus, ids and times left out: what a valid copy must keep. */
async function spanShapes(projects: string): Promise<string[]> {
  const prices = await loadPriceTable();
  const shapes: string[] = [];
  for (const files of await findSessions(projects)) {
    const { turns } = await sessionSpans(files, prices, {
      content: 'labels',
      maxAttributeBytes: 2048,
    });
    for (const turn of turns) {
      // Parents by name: siblings that start together are ordered by span id, which the rewrite changes.
      const names = new Map(turn.spans.map((s) => [s.spanId, s.name]));
      for (const s of turn.spans) {
        const attrs = Object.entries(s.attributes)
          .filter(([k]) => !/(\.id|conversation\.id|session\.id|request\.id|response\.id)$/.test(k))
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',');
        shapes.push(
          `${s.name}|${s.kind}|parent:${s.parentSpanId === null ? '-' : names.get(s.parentSpanId)}|${s.endMs - s.startMs}|${s.status.code}|${attrs}`,
        );
      }
    }
  }
  return shapes.sort();
}

describe.skipIf(!ON_LINUX)(
  'benchmarks (Linux only: they read memory and CPU figures from /proc)',
  () => {
    beforeAll(() => {
      // The scripts run dist/: without it every case would fail for one reason, said once here.
      if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js')))
        throw new Error('dist/ is not built: run `npm run build` first (`npm test` does)');
      work = mkdtempSync(join(tmpdir(), 'ccotel-bench-smoke-'));
    });

    afterAll(() => {
      rmSync(work, { recursive: true, force: true });
    });

    describe('benchmark scripts (smoke)', () => {
      it('generate-corpus: deterministic, sized, and valid copies', async () => {
        const corpus = join(work, 'corpus');
        const first = await bench('generate-corpus.mjs', ['--size', '3MB', '--out', corpus]);
        expect(first.code, first.stderr).toBe(0);
        const m = result('corpus');
        expect(m.bytes as number).toBeGreaterThanOrEqual(3e6);
        expect(m.copies as number).toBeGreaterThanOrEqual(2);
        for (const key of ['files', 'jsonlFiles', 'lines', 'sessions', 'projects', 'seed'])
          expect(typeof m[key], key).toBe('number');

        const again = join(work, 'again');
        expect((await bench('generate-corpus.mjs', ['--size', '3MB', '--out', again])).code).toBe(
          0,
        );
        expect(treeHash(again)).toBe(treeHash(corpus));
        const other = join(work, 'other-seed');
        expect(
          (await bench('generate-corpus.mjs', ['--size', '3MB', '--seed', '2', '--out', other]))
            .code,
        ).toBe(0);
        expect(treeHash(other)).not.toBe(treeHash(corpus));
        rmSync(again, { recursive: true, force: true });
        rmSync(other, { recursive: true, force: true });

        // One copy with every id rewritten and its times shifted converts to the fixtures' own span tree.
        const reference = join(work, 'reference');
        const copy = join(work, 'copy');
        expect(
          (await bench('generate-corpus.mjs', ['--size', '1', '--no-rewrite', '--out', reference]))
            .code,
        ).toBe(0);
        expect((await bench('generate-corpus.mjs', ['--size', '1', '--out', copy])).code).toBe(0);
        const [a, b] = await Promise.all([
          spanShapes(join(reference, 'projects')),
          spanShapes(join(copy, 'projects')),
        ]);
        expect(a.length).toBeGreaterThan(100);
        expect(b).toEqual(a);
        rmSync(reference, { recursive: true, force: true });
        rmSync(copy, { recursive: true, force: true });
      }, 180_000);

      it('generate-corpus --progress-share: progress lines at that share, each a valid progress record', async () => {
        const out = join(work, 'progress');
        const run = await bench('generate-corpus.mjs', [
          '--size',
          '2MB',
          '--progress-share',
          '0.5',
          '--out',
          out,
        ]);
        expect(run.code, run.stderr).toBe(0);
        expect(result('corpus').progressShare).toBe(0.5);
        let lines = 0;
        let progress = 0;
        const walk = (d: string): void => {
          for (const name of readdirSync(d)) {
            const p = join(d, name);
            if (statSync(p).isDirectory()) walk(p);
            else if (name.endsWith('.jsonl'))
              for (const line of readFileSync(p, 'utf8').split('\n')) {
                if (line.trim() === '') continue;
                lines += 1;
                if (!line.includes('"type":"progress","data"')) continue;
                progress += 1;
                // The fixtures' own broken lines stay broken; every other one is a progress record with a uuid.
                const parsed = parseRecord(line);
                if (parsed.kind === 'malformed') continue;
                expect(parsed.kind === 'record' && parsed.record.type === 'progress', line).toBe(
                  true,
                );
                if (parsed.kind === 'record') expect(parsed.record.uuid).not.toBeNull();
              }
          }
        };
        walk(join(out, 'projects'));
        expect(progress / lines).toBeGreaterThan(0.45);
        expect(progress / lines).toBeLessThan(0.55);
        rmSync(out, { recursive: true, force: true });
      }, 180_000);

      it('convert-throughput: every path yields the plain path spans, byte for byte', async () => {
        const run = await bench('convert-throughput.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
          '--runs',
          '1',
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('convert');
        expect(r.identical).toBe(true);
        const v = r.variants as Record<string, Record<string, number>>;
        for (const name of ['baseline', 'reference', 'shipped', 'workers']) {
          for (const key of ['seconds', 'mbPerSecond', 'peakRssMB', 'ratioToBaseline', 'bytes'])
            expect(typeof v[name]?.[key], `${name}.${key}`).toBe('number');
        }
        expect(v.baseline?.lines).toBeGreaterThan(1000);
        expect(v.shipped?.spans).toBeGreaterThan(1000);
        expect(v.shipped?.spans).toBe(v.reference?.spans);
        expect(v.workers?.spans).toBe(v.reference?.spans);
      }, 180_000);

      it('convert-throughput halves: two dry runs over halves of the project dirs count what one does', async () => {
        const run = await bench('convert-throughput.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
          '--variants',
          'baseline,dry-run,halves,halves-st',
          '--runs',
          '1',
          '--no-phases',
          '--name',
          'convert-halves',
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('convert-halves');
        const check = r.halvesCheck as { equal: boolean; whole: number[]; summed: number[] };
        expect(check.equal).toBe(true);
        expect(check.whole[2]).toBeGreaterThan(1000);
        expect(check.summed).toEqual(check.whole);
        const v = r.variants as Record<string, Record<string, number>>;
        for (const name of ['halves', 'halves-st']) {
          for (const key of ['seconds', 'cpuSeconds', 'peakRssMB', 'ratioToBaseline'])
            expect(typeof v[name]?.[key], `${name}.${key}`).toBe('number');
          // Two processes' RSS summed: more than one dry run's own.
          expect(v[name]?.peakRssMB).toBeGreaterThan(v['dry-run']?.peakRssMB ?? Infinity);
        }
      }, 180_000);

      it('export-throughput: the receiver gets every span', async () => {
        const run = await bench('export-throughput.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('export');
        expect(r.ok).toBe(true);
        const cases = r.cases as Record<string, Record<string, number>>;
        const converted = (result('convert').variants as Record<string, Record<string, number>>)
          .shipped?.spans;
        expect(cases['wire only (protobuf)']?.spans).toBe(converted);
        for (const c of Object.values(cases)) {
          for (const key of ['seconds', 'spans', 'spansPerSecond', 'requests', 'wireMB'])
            expect(typeof c[key], key).toBe('number');
          expect(c.spans).toBeGreaterThan(0);
        }
      }, 180_000);

      it('export-rerun: a re-run sends nothing, an appended turn sends that turn alone', async () => {
        const run = await bench('export-rerun.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
          '--runs',
          '1',
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('export-rerun');
        expect(r.ok).toBe(true);
        const cases = r.cases as Record<string, Record<string, unknown>>;
        expect(cases['second export, nothing changed']?.spans).toEqual([0]);
        const appended = cases['export after one turn appended'];
        expect(appended?.spans).toEqual(appended?.turnSpans);
        for (const c of Object.values(cases)) expect(typeof c.seconds).toBe('number');
        expect(typeof cases['watch restart']?.ratio).toBe('number');
      }, 180_000);

      it('follow-view: start-up, idle CPU and append-to-line latency are measured', async () => {
        const run = await bench('follow-view.mjs', [
          '--size',
          '1MB',
          '--appends',
          '3',
          '--idle',
          '1',
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('follow');
        expect(r.startupSeconds).toBeGreaterThan(0);
        expect(typeof r.idleCpuSeconds).toBe('number');
        const latency = r.appendToLineMs as { p50: number; p99: number; n: number };
        expect(latency.n).toBe(3);
        expect(latency.p99).toBeGreaterThanOrEqual(latency.p50);
      }, 180_000);

      it.skipIf(!TMUX && process.env.CCOTEL_REQUIRE_TMUX !== '1')(
        `follow-view --screen: the same figures read off the screen in tmux${TMUX ? '' : ' (skipped: tmux not installed)'}`,
        async () => {
          const run = await bench('follow-view.mjs', [
            '--size',
            '1MB',
            '--appends',
            '3',
            '--idle',
            '1',
            '--screen',
          ]);
          expect(run.code, run.stderr + run.stdout).toBe(0);
          const r = result('follow-screen');
          expect(r.mode).toBe('screen in tmux');
          expect(r.startupSeconds).toBeGreaterThan(0);
          const latency = r.appendToLineMs as { p50: number; p99: number; n: number };
          expect(latency.n).toBe(3);
          expect(latency.p99).toBeGreaterThanOrEqual(latency.p50);
        },
        180_000,
      );

      it('parse-floors: every step reads the same lines the baseline reads', async () => {
        const run = await bench('parse-floors.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
          '--runs',
          '1',
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const samples = result('parse-floors').samples as Record<
          string,
          { seconds: number; counts?: Record<string, number>; lines?: number; failed?: number }[]
        >;
        const first = (step: string): Record<string, number> => samples[step]?.[0]?.counts ?? {};
        const naive = samples.naive?.[0];
        expect(naive?.lines).toBeGreaterThan(1000);
        for (const step of Object.keys(samples))
          expect(samples[step]?.[0]?.seconds, step).toBeGreaterThan(0);
        expect(first('read').lines).toBe(naive?.lines);
        expect(first('parse').parsed).toBe((naive?.lines ?? 0) - (naive?.failed ?? 0));
        // One decode per line or one per file: the same characters either way.
        expect(first('chunk-lines').chars).toBe(first('lines').chars);
        expect(first('parse-record').records).toBeGreaterThan(0);
        expect(first('parse-record').records).toBeLessThanOrEqual(first('parse').parsed ?? 0);
        expect(first('byte-scan').bytes).toBe(first('read').bytes);
      }, 180_000);

      it('live-latency: every turn measured', async () => {
        const run = await bench('live-latency.mjs', ['--turns', '3']);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('latency');
        for (const kind of ['tool', 'chat', 'turn']) {
          const row = r[kind] as Record<string, number>;
          expect(row.samples, kind).toBe(3);
          expect(row.missing, kind).toBe(0);
          expect(typeof row['p99 ms'], kind).toBe('number');
        }
      }, 180_000);

      it('memory: peak RSS of each case, the daemon included', async () => {
        const run = await bench('memory.mjs', [
          '--corpus',
          join(work, 'corpus', 'projects'),
          '--single',
          '3MB',
          '--files',
          '200',
          '--out',
          join(work, 'memory'),
        ]);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const r = result('memory');
        const corpus = r.corpus as Record<string, number>;
        expect(corpus.convertPeakRssMB).toBeGreaterThan(0);
        expect(corpus.exportPeakRssMB).toBeGreaterThan(0);
        const single = r.single as Record<string, number> & { heapMB: Record<string, number> };
        expect(single.entries).toBeGreaterThan(100);
        expect(single.convertPeakRssMB).toBeGreaterThan(0);
        expect(typeof single.heapMB.records).toBe('number');
        const daemon = r.daemon as Record<string, unknown>;
        expect(daemon.files as number).toBeGreaterThanOrEqual(200);
        expect(typeof (daemon.firstStart as Record<string, number>).startupSeconds).toBe('number');
        expect(typeof (daemon.restart as Record<string, number>).rssMB).toBe('number');
        expect(existsSync(join(work, 'memory', 'single-3MB-seed1'))).toBe(false);
      }, 180_000);
    });
  },
);
