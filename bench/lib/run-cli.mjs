// Runs one ccotel command from dist/ like bin/ccotel does, then reports its own
// peak RSS (lib/peak-rss.mjs) and CPU time as a last stderr line (`@@bench {...}`): a parent
// cannot read a child's getrusage from Node.
// CCOTEL_BENCH_DIST points at another build (an A/B experiment), as in workloads.mjs.
const dist =
  process.env.CCOTEL_BENCH_DIST === undefined
    ? new URL('../../dist/', import.meta.url)
    : new URL(`file://${process.env.CCOTEL_BENCH_DIST.replace(/\/?$/, '/')}`);
const { runCli } = await import(new URL('cli/run.js', dist).href);
const { peakRssMB } = await import('./peak-rss.mjs');

let stop;
const io = {
  stdout: (t) => process.stdout.write(t),
  stdoutDrained: () =>
    process.stdout.writableNeedDrain
      ? new Promise((resolve) => process.stdout.once('drain', resolve))
      : Promise.resolve(),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  isTTY: false,
  columns: 100,
  get stopSignal() {
    stop ??= new Promise((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    return stop;
  },
};

const started = performance.now();
const code = await runCli(process.argv.slice(2), io);
const usage = process.resourceUsage();
process.stderr.write(
  `\n@@bench ${JSON.stringify({ code, seconds: (performance.now() - started) / 1000, peakRssMB: peakRssMB(), cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 })}\n`,
);
process.exitCode = code;
