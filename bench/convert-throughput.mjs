// npm run bench:convert -- [--size 200MB] [--seed 1] [--runs 3] [--workers 2] [--corpus DIR] [--before DIST]
//   [--progress-share 0.5]
// Conversion throughput over the generated corpus: the full pipeline (read →
// rows → spans → OTLP protobuf bytes, no network) against the naive baseline
// (read every file, JSON.parse every line) in the same run, each variant in
// its own process for its peak RSS, runs interleaved so that a busy moment on
// the machine hits every variant alike. Reports the median of the runs.
// `dry-run` and `out` run the whole `ccotel export` command (--dry-run, --out FILE).
// --before DIST also runs every variant but the baseline against another build
// (e.g. a copy of dist/ from before a change), interleaved: an A/B in one run.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs, parseSize } from './lib/args.mjs';
import {
  mbps,
  median,
  printTable,
  round,
  runCcotel,
  runWorkload,
  writeResult,
} from './lib/report.mjs';
import { halvesAddUp, runHalves } from './lib/halves.mjs';
import { throughputCorpus } from './lib/throughput-corpus.mjs';

const HELP = `Usage: node bench/convert-throughput.mjs [--size 200MB] [--seed N] [--runs N] [--workers N]
       [--variants baseline,reference,reader,whole,shipped,workers] [--corpus PROJECTS_DIR] [--name NAME] [--no-phases]
       [--before DIST] [--progress-share S]

Variants:
  baseline   read each file whole, JSON.parse each line (the naive reference)
  reference  the conversion path before the speed work (bench/lib/reference-pipeline.mjs)
  reader     the shipped reader with the SDK serializer (the reader's share of the gain)
  whole      ccotel's conversion, each session read whole first (sessionSpans + encodeSpans)
  shipped    ccotel's conversion as export runs it: a segment of turns at a time
             (streamSessionSpans + encodeSpans)
  workers    ccotel's conversion spread over --workers threads (session-spans-pool)
  dry-run    \`ccotel export --dry-run\` over the corpus (whole command, no state file)
  out        \`ccotel export --out FILE\` over the corpus (OTLP/JSON; digest of the file compared)
  halves     two \`ccotel export --dry-run\` at once, each over every other project dir
             (seconds: the later one's; CPU and peak RSS: the sum); halves-st: each
             with node --single-threaded. Measures the two-core premise; no command
             runs this way

--before DIST  every variant but baseline also runs against that build (name@before)
--progress-share S  the generated corpus with progress lines added up to S of
               each transcript's lines (real 2.1.x shape: 0.5-0.7; default 0:
               the fixtures' own ~1 %)
`;

const args = benchArgs({
  size: { type: 'string', default: '200MB' },
  seed: { type: 'string', default: '1' },
  runs: { type: 'string', default: '3' },
  workers: { type: 'string', default: '2' },
  variants: { type: 'string', default: 'baseline,reference,reader,whole,shipped,workers' },
  corpus: { type: 'string' },
  name: { type: 'string', default: 'convert' },
  'no-phases': { type: 'boolean', default: false },
  before: { type: 'string' },
  'progress-share': { type: 'string', default: '0' },
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

const size = parseSize(args.size);
const seed = Number(args.seed);
const runs = Math.max(1, Number(args.runs));
const workers = Number(args.workers);
const before = args.before === undefined ? null : resolve(args.before);
const variants = args.variants
  .split(',')
  .map((v) => v.trim())
  .flatMap((v) => (before === null || v === 'baseline' ? [v] : [v, `${v}@before`]));
const { projectsDir: corpus, load } = await throughputCorpus({
  corpus: args.corpus,
  size,
  seed,
  progressShare: Number(args['progress-share']),
});

/** Runs `job` with a fresh temp dir, removed afterwards. */
async function inTmp(job) {
  const tmp = mkdtempSync(join(tmpdir(), 'ccotel-bench-convert-'));
  try {
    return await job(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The whole `ccotel export` command over the corpus; `--out`'s file is hashed, then deleted. */
function exportCommand(extra, env) {
  return inTmp(async (tmp) => {
    const out = join(tmp, 'out.jsonl');
    const argv = ['export', corpus, '--state-dir', join(tmp, 'state'), '--quiet'];
    const r = await runCcotel([...argv, ...(extra === 'out' ? ['--out', out] : ['--dry-run'])], {
      env,
    });
    if (r.measured === null || r.code !== 0)
      throw new Error(`ccotel export failed (${r.code}): ${r.stderr.slice(-500)}`);
    const digest =
      extra === 'out' ? createHash('sha1').update(readFileSync(out)).digest('hex') : null;
    return { ...r.measured, bytes: null, files: null, outDigest: digest };
  });
}

const jobsWith = (env) => ({
  baseline: () => runWorkload('baseline', { dir: corpus }),
  reference: () => runWorkload('convert', { dir: corpus, mode: 'reference' }, { env }),
  reader: () => runWorkload('convert', { dir: corpus, mode: 'shipped', encoder: 'sdk' }, { env }),
  whole: () => runWorkload('convert', { dir: corpus, mode: 'whole' }, { env }),
  shipped: () => runWorkload('convert', { dir: corpus, mode: 'shipped' }, { env }),
  workers: () => runWorkload('convert', { dir: corpus, mode: 'workers', workers }, { env }),
  'dry-run': () => exportCommand('dry-run', env),
  out: () => exportCommand('out', env),
  halves: () => inTmp((tmp) => runHalves(corpus, join(tmp, 'state'), { env })),
  'halves-st': () =>
    inTmp((tmp) => runHalves(corpus, join(tmp, 'state'), { env, nodeArgs: ['--single-threaded'] })),
});
const current = jobsWith({});
const older = before === null ? {} : jobsWith({ CCOTEL_BENCH_DIST: before });
const jobs = Object.fromEntries(
  variants.map((v) => [v, v.endsWith('@before') ? older[v.slice(0, -7)] : current[v]]),
);
const samples = Object.fromEntries(variants.map((v) => [v, []]));
for (let run = 1; run <= runs; run += 1) {
  for (const v of variants) {
    const r = await jobs[v]();
    samples[v].push(r);
    process.stdout.write(
      `run ${run}/${runs} ${v.padEnd(9)} ${r.seconds.toFixed(2)} s, peak RSS ${r.peakRssMB.toFixed(0)} MB\n`,
    );
  }
}

const summary = {};
// The export command reads the same corpus the baseline reads.
const corpusBytes = samples.baseline?.[0]?.bytes ?? null;
for (const v of variants) {
  const rs = samples[v];
  const seconds = median(rs.map((r) => r.seconds));
  const bytes = rs[0].bytes ?? corpusBytes;
  const best = Math.min(...rs.map((r) => r.seconds));
  summary[v] = {
    seconds: round(seconds, 3),
    mbPerSecond: round(mbps(bytes, seconds), 1),
    // The least disturbed run: on a shared machine the closest to the code's own speed.
    bestSeconds: round(best, 3),
    bestMbPerSecond: round(mbps(bytes, best), 1),
    peakRssMB: round(median(rs.map((r) => r.peakRssMB)), 0),
    maxPeakRssMB: round(Math.max(...rs.map((r) => r.peakRssMB)), 0),
    cpuSeconds: round(median(rs.map((r) => r.cpuSeconds)), 2),
    bytes,
    files: rs[0].files,
    ...(v === 'baseline'
      ? { lines: rs[0].lines }
      : rs[0].outDigest !== undefined
        ? { outDigest: rs[0].outDigest }
        : {
            sessions: rs[0].sessions,
            turns: rs[0].turns,
            spans: rs[0].spans,
            requests: rs[0].requests,
            otlpBytes: rs[0].otlpBytes,
            digest: rs[0].digest,
          }),
    runs: rs.map((r) => round(r.seconds, 3)),
  };
}
const base = summary.baseline;
for (const v of variants) {
  if (base === undefined) break;
  summary[v].ratioToBaseline = round(summary[v].mbPerSecond / base.mbPerSecond, 2);
  summary[v].bestRatioToBaseline = round(summary[v].bestMbPerSecond / base.bestMbPerSecond, 2);
  // CPU time, for a loaded machine: the wall clock there measures the neighbours as much as the code.
  summary[v].cpuRatioToBaseline = round(base.cpuSeconds / summary[v].cpuSeconds, 2);
  // Per-run ratios: each run's variants ran back to back, under the same neighbours.
  summary[v].runRatios = samples[v].map((r, i) =>
    round(samples.baseline[i].seconds / r.seconds, 2),
  );
}

// The same spans, byte for byte, whichever path produced them (and the same --out file, either build).
const converters = variants.filter((v) => v !== 'baseline' && samples[v][0].digest !== undefined);
const digests = new Set(converters.flatMap((v) => samples[v].map((r) => r.digest)));
const spanCounts = new Set(converters.flatMap((v) => samples[v].map((r) => r.spans)));
const outs = variants.filter((v) => samples[v][0].outDigest != null);
const outDigests = new Set(outs.flatMap((v) => samples[v].map((r) => r.outDigest)));
const identical = digests.size <= 1 && spanCounts.size <= 1 && outDigests.size <= 1;

printTable(
  `conversion throughput, ${((base?.bytes ?? size) / 1e6).toFixed(0)} MB corpus (median of ${runs} run${runs > 1 ? 's' : ''})`,
  variants.map((v) => ({
    variant: v,
    seconds: summary[v].seconds,
    'MB/s': summary[v].mbPerSecond,
    'x baseline': summary[v].ratioToBaseline ?? null,
    'best s': summary[v].bestSeconds,
    'x baseline (best)': summary[v].bestRatioToBaseline ?? null,
    'peak RSS MB': summary[v].peakRssMB,
    'CPU s': summary[v].cpuSeconds,
    'x baseline (CPU)': summary[v].cpuRatioToBaseline ?? null,
    spans: summary[v].spans ?? null,
  })),
);
process.stdout.write(
  `\noutputs identical across converters: ${identical ? 'yes' : 'NO'} (${[...spanCounts].join('/')} spans)\n`,
);

// A split by project dir must count what one run counts (untimed, once).
let halvesCheck = null;
if (variants.some((v) => v.startsWith('halves'))) {
  halvesCheck = await inTmp((tmp) => halvesAddUp(corpus, join(tmp, 'state')));
  process.stdout.write(
    `halves add up to one whole dry run (sessions, turns, spans, warnings): ${halvesCheck.equal ? 'yes' : 'NO'} (${halvesCheck.summed.join('/')} against ${halvesCheck.whole.join('/')})\n`,
  );
}

// Where the shipped path spends its CPU, stage by stage (one extra run).
let phases = null;
if (!args['no-phases']) {
  phases = (await runWorkload('phases', { dir: corpus })).cpuMs;
  const total = Object.values(phases).reduce((a, b) => a + b, 0);
  printTable(
    'shipped path, CPU by stage (one run)',
    Object.entries(phases).map(([stage, ms]) => ({
      stage,
      'CPU ms': ms,
      share: `${Math.round((100 * ms) / total)}%`,
    })),
  );
}
writeResult(args.name, {
  corpus,
  backgroundLoadPercent: load,
  runs,
  workers,
  identical,
  halvesCheck,
  variants: summary,
  phasesCpuMs: phases,
});
if (!identical || halvesCheck?.equal === false) process.exitCode = 1;
