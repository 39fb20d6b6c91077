// npm run bench:convert -- [--size 200MB] [--seed 1] [--runs 3] [--workers 2] [--corpus DIR]
// Conversion throughput over the generated corpus: the full pipeline (read →
// rows → spans → OTLP protobuf bytes, no network) against the naive baseline
// (read every file, JSON.parse every line) in the same run, each variant in
// its own process for its peak RSS, runs interleaved so that a busy moment on
// the machine hits every variant alike. Reports the median of the runs.
import { benchArgs, parseSize } from './lib/args.mjs';
import { ensureCorpus } from './lib/corpus.mjs';
import {
  backgroundLoad,
  mbps,
  median,
  printTable,
  round,
  runWorkload,
  writeResult,
} from './lib/report.mjs';

const HELP = `Usage: node bench/convert-throughput.mjs [--size 200MB] [--seed N] [--runs N] [--workers N]
       [--variants baseline,reference,reader,whole,shipped,workers] [--corpus PROJECTS_DIR] [--name NAME] [--no-phases]

Variants:
  baseline   read each file whole, JSON.parse each line (the naive reference)
  reference  the conversion path before the speed work (bench/lib/reference-pipeline.mjs)
  reader     the shipped reader with the SDK serializer (the reader's share of the gain)
  whole      ccotel's conversion, each session read whole first (sessionSpans + encodeSpans)
  shipped    ccotel's conversion as export runs it: a segment of turns at a time
             (streamSessionSpans + encodeSpans)
  workers    ccotel's conversion spread over --workers threads (session-spans-pool)
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
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

const size = parseSize(args.size);
const seed = Number(args.seed);
const runs = Math.max(1, Number(args.runs));
const workers = Number(args.workers);
const variants = args.variants.split(',').map((v) => v.trim());
const corpus =
  args.corpus ??
  ensureCorpus({ size, seed, log: (m) => process.stdout.write(`${m}\n`) }).projectsDir;

const load = await backgroundLoad();
process.stdout.write(
  `corpus ${corpus}; other load on the machine before the runs: ${load ?? '?'}% of all cores\n`,
);

const jobs = {
  baseline: () => runWorkload('baseline', { dir: corpus }),
  reference: () => runWorkload('convert', { dir: corpus, mode: 'reference' }),
  reader: () => runWorkload('convert', { dir: corpus, mode: 'shipped', encoder: 'sdk' }),
  whole: () => runWorkload('convert', { dir: corpus, mode: 'whole' }),
  shipped: () => runWorkload('convert', { dir: corpus, mode: 'shipped' }),
  workers: () => runWorkload('convert', { dir: corpus, mode: 'workers', workers }),
};
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
for (const v of variants) {
  const rs = samples[v];
  const seconds = median(rs.map((r) => r.seconds));
  const bytes = rs[0].bytes;
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
  // Per-run ratios: each run's variants ran back to back, under the same neighbours.
  summary[v].runRatios = samples[v].map((r, i) =>
    round(samples.baseline[i].seconds / r.seconds, 2),
  );
}

// The same spans, byte for byte, whichever path produced them.
const converters = variants.filter((v) => v !== 'baseline');
const digests = new Set(converters.flatMap((v) => samples[v].map((r) => r.digest)));
const spanCounts = new Set(converters.flatMap((v) => samples[v].map((r) => r.spans)));
const identical = digests.size <= 1 && spanCounts.size <= 1;

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
    spans: summary[v].spans ?? null,
  })),
);
process.stdout.write(
  `\noutputs identical across converters: ${identical ? 'yes' : 'NO'} (${[...spanCounts].join('/')} spans)\n`,
);

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
  variants: summary,
  phasesCpuMs: phases,
});
if (!identical) process.exitCode = 1;
