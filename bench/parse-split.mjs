// npm run bench:parse-split -- [--size 200MB] [--progress-share S] [--runs 3] [--corpus DIR]
// Would a second thread pay for reading and parsing? Issue 15 names the two
// cores as the way past the one-threaded floor; this measures the premise.
// Each variant runs in a fresh process over the same corpus, interleaved:
//   baseline  read each file whole, JSON.parse each line (the naive loop)
//   main      ccotel's reader and parseRecord on the main thread (what export does today)
//   worker    the same on a worker thread, each batch of outcomes posted to the
//             main thread, which only receives them (structured clone)
// Reported: wall, the main thread's busy time (event-loop utilisation), the
// process's CPU and peak RSS. `worker` frees the main thread of `main`'s busy
// time minus its own: the rest of the pipeline (assembly, spans, encoding)
// would have to fit in what is left for the split to pay.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { median, printTable, round, writeResult } from './lib/report.mjs';
import { jsonlFiles } from './lib/workloads.mjs';
import { peakRssMB } from './lib/peak-rss.mjs';
import { runChild, variantSamples } from './lib/variant-runs.mjs';

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);

/** Reads `file` through ccotel's reader, handing each line batch's outcomes to `sink`. */
async function parseFile(file, sink) {
  const [{ openLines }, { parseRecord }] = await Promise.all([
    import(new URL('adapters/files/read-lines.js', DIST).href),
    import(new URL('core/transcript/parse-record.js', DIST).href),
  ]);
  const lines = openLines(file);
  try {
    for (let batch = lines.next(); batch !== null; batch = lines.next()) {
      const outcomes = [];
      for (const line of batch) if (line.text !== '') outcomes.push(parseRecord(line.text));
      sink(outcomes);
    }
  } finally {
    lines.close();
  }
}

async function naive(files) {
  const { readFileSync } = await import('node:fs');
  let n = 0;
  for (const file of files)
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        JSON.parse(line);
        n += 1;
      } catch {
        n += 1;
      }
    }
  return n;
}

async function onWorker(files) {
  const worker = new Worker(SELF, { workerData: { files } });
  let n = 0;
  await new Promise((resolve, reject) => {
    worker.on('message', (m) => (m === 'done' ? resolve() : (n += m.length)));
    worker.once('error', reject);
  });
  await worker.terminate();
  return n;
}

/** One variant in this process: its figures as one JSON line. */
async function measure(variant, dir) {
  const files = await jsonlFiles(dir);
  const started = performance.now();
  const loop = performance.eventLoopUtilization();
  let records = 0;
  if (variant === 'baseline') records = await naive(files);
  else if (variant === 'worker') records = await onWorker(files);
  else for (const f of files) await parseFile(f, (o) => (records += o.length));
  const busy = performance.eventLoopUtilization(loop).active / 1000;
  const usage = process.resourceUsage();
  return {
    variant,
    records,
    seconds: (performance.now() - started) / 1000,
    mainBusySeconds: busy,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    peakRssMB: peakRssMB(),
  };
}

async function main() {
  const variants = ['baseline', 'main', 'worker'];
  const result = await variantSamples(variants, measure, (v, dir) => runChild(SELF, v, dir));
  if (result === null) return;
  const { args, samples } = result;
  const dir = args.corpus;
  const rows = variants.map((v) => {
    const pick = (k) => round(median(samples[v].map((r) => r[k])));
    return {
      variant: v,
      seconds: pick('seconds'),
      'main thread busy s': pick('mainBusySeconds'),
      'CPU s': pick('cpuSeconds'),
      'peak RSS MB': round(median(samples[v].map((r) => r.peakRssMB)), 0),
      records: samples[v][0].records,
    };
  });
  printTable(`parse on a second thread, ${dir} (median of ${args.runs} runs)`, rows);
  writeResult('parse-split', { corpus: dir, rows, samples });
}

if (isMainThread) await main();
else {
  for (const f of workerData.files) await parseFile(f, (o) => parentPort.postMessage(o));
  parentPort.postMessage('done');
}
