// npm run bench -- [flags passed to every benchmark that takes them]
// Every benchmark, one after another (never two at once: the figures are
// CPU-bound and the reference machine has two cores): corpus, conversion,
// export, re-runs, live latency, memory, start-up. Each prints its table and writes
// bench/results/<name>.json.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib/corpus.mjs';

const steps = [
  ['generate-corpus.mjs', ['--size', '200MB']],
  ['convert-throughput.mjs', ['--runs', '3']],
  ['export-throughput.mjs', []],
  ['export-rerun.mjs', []],
  ['live-latency.mjs', []],
  ['memory.mjs', []],
  ['startup.mjs', []],
];
let failed = 0;
for (const [script, args] of steps) {
  process.stdout.write(`\n=== ${script} ${args.join(' ')}\n`);
  const run = spawnSync(process.execPath, [join(ROOT, 'bench', script), ...args], {
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    failed += 1;
    process.stdout.write(`${script} failed (exit ${run.status})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
