// npm run bench:export -- [--size 200MB] [--seed 1] [--runs 1] [--corpus DIR] [--before DIST]
// Export throughput to a real local OTLP/HTTP receiver running in its own
// process: `ccotel export` end to end (protobuf, then gzip), and the wire alone
// (requests built beforehand, then sent one after another as export sends
// them). Spans/s counts the spans the receiver got, over the sender's time.
// --before DIST also runs both export cases against another build (e.g. a
// copy of dist/ from before a change), interleaved: an A/B in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs, parseSize } from './lib/args.mjs';
import {
  forkReceiver,
  median,
  printTable,
  round,
  runCcotel,
  runWorkload,
  writeResult,
} from './lib/report.mjs';
import { throughputCorpus } from './lib/throughput-corpus.mjs';

const HELP = `Usage: node bench/export-throughput.mjs [--size 200MB] [--seed N] [--runs N] [--corpus PROJECTS_DIR] [--name NAME]
       [--before DIST]   the export cases also run against that build (name@before), interleaved\n`;

const args = benchArgs({
  size: { type: 'string', default: '200MB' },
  seed: { type: 'string', default: '1' },
  runs: { type: 'string', default: '1' },
  corpus: { type: 'string' },
  name: { type: 'string', default: 'export' },
  before: { type: 'string' },
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

const runs = Math.max(1, Number(args.runs));
const before = args.before === undefined ? null : resolve(args.before);
const { projectsDir: corpus, load } = await throughputCorpus({
  corpus: args.corpus,
  size: parseSize(args.size),
  seed: Number(args.seed),
});

/** One measured case against a fresh receiver process. */
async function measure(name, send) {
  const receiver = await forkReceiver();
  try {
    const sent = await send(receiver.url);
    const got = await receiver.stats();
    return {
      name,
      seconds: sent.seconds,
      peakRssMB: sent.peakRssMB ?? null,
      cpuSeconds: sent.cpuSeconds ?? null,
      spans: got.spans,
      requests: got.requests,
      wireBytes: got.bytes,
      decodedBytes: got.decodedBytes,
      receiverErrors: got.errors,
      receiverCpuSeconds: got.cpuSeconds ?? null,
      exitCode: sent.code ?? 0,
    };
  } finally {
    await receiver.stop();
  }
}

async function exportCase(url, extra, env = {}) {
  const state = mkdtempSync(join(tmpdir(), 'ccotel-bench-export-'));
  try {
    const r = await runCcotel(
      ['export', corpus, '--endpoint', url, '--state-dir', state, '--force', '--quiet', ...extra],
      { env },
    );
    if (r.measured === null) throw new Error(`export did not finish: ${r.stderr.slice(-500)}`);
    return { ...r.measured, code: r.code };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

const exportCases = [
  ['export (protobuf)', []],
  ['export (protobuf, gzip)', ['--compression', 'gzip']],
];
const cases = [
  ...exportCases.flatMap(([name, extra]) => [
    [name, (url) => exportCase(url, extra)],
    ...(before === null
      ? []
      : [[`${name}@before`, (url) => exportCase(url, extra, { CCOTEL_BENCH_DIST: before })]]),
  ]),
  ['wire only (protobuf)', (url) => runWorkload('send', { dir: corpus, url })],
];
const samples = Object.fromEntries(cases.map(([name]) => [name, []]));
for (let run = 1; run <= runs; run += 1) {
  for (const [name, send] of cases) {
    const r = await measure(name, send);
    samples[name].push(r);
    process.stdout.write(
      `run ${run}/${runs} ${name}: ${r.spans} spans in ${r.seconds.toFixed(2)} s\n`,
    );
  }
}

const summary = {};
for (const [name] of cases) {
  const rs = samples[name];
  const seconds = median(rs.map((r) => r.seconds));
  summary[name] = {
    seconds: round(seconds, 3),
    spans: rs[0].spans,
    spansPerSecond: round(rs[0].spans / seconds, 0),
    requests: rs[0].requests,
    wireMB: round(rs[0].wireBytes / 1e6, 1),
    wireMBPerSecond: round(rs[0].wireBytes / 1e6 / seconds, 1),
    peakRssMB: rs[0].peakRssMB === null ? null : round(median(rs.map((r) => r.peakRssMB)), 0),
    cpuSeconds: rs[0].cpuSeconds === null ? null : round(median(rs.map((r) => r.cpuSeconds)), 2),
    receiverErrors: rs.reduce((n, r) => n + r.receiverErrors, 0),
    // The receiver's CPU over the sender's wall time: its share of a core.
    receiverCpuShare: round(median(rs.map((r) => (r.receiverCpuSeconds ?? NaN) / r.seconds)), 2),
    exitCodes: rs.map((r) => r.exitCode),
    runs: rs.map((r) => round(r.seconds, 3)),
  };
}
printTable(
  `export throughput to a local OTLP/HTTP receiver (median of ${runs} run${runs > 1 ? 's' : ''})`,
  cases.map(([name]) => ({
    case: name,
    seconds: summary[name].seconds,
    spans: summary[name].spans,
    'spans/s': summary[name].spansPerSecond,
    requests: summary[name].requests,
    'MB sent': summary[name].wireMB,
    'peak RSS MB': summary[name].peakRssMB,
    'CPU s': summary[name].cpuSeconds,
    'receiver CPU (cores)': summary[name].receiverCpuShare,
  })),
);
const ok = Object.values(summary).every(
  (s) => s.receiverErrors === 0 && s.exitCodes.every((c) => c === 0) && s.spans > 0,
);
writeResult(args.name, {
  corpus,
  backgroundLoadPercent: load,
  runs,
  before,
  ok,
  cases: summary,
});
if (!ok) process.exitCode = 1;
