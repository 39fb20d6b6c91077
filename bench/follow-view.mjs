// npm run bench:follow -- [--size 300MB] [--appends 30] [--idle 60]
// `ccotel show --follow` off a terminal (its line mode, the same reading and
// redraw path as the screen): start-up on a long session (spawn to its first
// line), latency from appending a finished call to its line on stdout
// (p50/p99), and CPU while nothing is written (ticks of the process over
// --idle seconds).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs, parseSize } from './lib/args.mjs';
import { ROOT } from './lib/corpus.mjs';
import { writeLongSession } from './lib/long-session.mjs';
import { median, printTable, round, writeResult } from './lib/report.mjs';

const args = benchArgs({
  size: { type: 'string', default: '300MB' },
  appends: { type: 'string', default: '30' },
  idle: { type: 'string', default: '60' },
  name: { type: 'string', default: 'follow' },
});
if (args.help === true) {
  process.stdout.write(
    'Usage: node bench/follow-view.mjs [--size 300MB] [--appends N] [--idle SECONDS]\n',
  );
  process.exit(0);
}
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'ccotel-bench-follow-'));

/** A generated session of about `bytes`: turns are added until the main file is that large. */
function longSession(bytes) {
  const probe = writeLongSession({ dir: join(work, 'probe'), turns: 4, callsPerTurn: 8, seed: 3 });
  const perTurn = statSync(probe.file).size / 4;
  const turns = Math.max(2, Math.ceil(bytes / perTurn));
  return writeLongSession({ dir: join(work, 'long'), turns, callsPerTurn: 8, seed: 3 });
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const ticksOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};

const session = longSession(parseSize(args.size));
const file = session.file;
const size = statSync(file).size;
// One finished call in a new turn, appended with fresh ids each time.
const tail = readFileSync(file, 'utf8').trimEnd().split('\n');
const lastPrompt = tail.findLastIndex(
  (l) => l.includes('"type":"user"') && !l.includes('tool_result'),
);
const turnLines = tail.slice(lastPrompt);

const t0 = performance.now();
const child = spawn(process.execPath, [CLI, 'show', '--follow', file], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { PATH: process.env.PATH, HOME: work },
});
let out = '';
let firstAt = null;
const waiters = [];
child.stdout.on('data', (d) => {
  firstAt ??= performance.now();
  out += d.toString('utf8');
  for (const w of [...waiters])
    if (out.includes(w.marker)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(performance.now());
    }
});
/** When stdout has grown past `length` (polled every 2 ms), or null after `ms`. */
async function grown(length, ms) {
  const deadline = performance.now() + ms;
  while (out.length <= length) {
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now();
}
const seen = (marker) => new Promise((resolve) => waiters.push({ marker, resolve }));
try {
  const started = await Promise.race([
    seen('turn '),
    new Promise((r) => setTimeout(() => r(null), 120_000)),
  ]);
  if (started === null) throw new Error('follow printed nothing in 120 s');
  const startup = (firstAt - t0) / 1000;
  // Let the first read finish printing before idling.
  await new Promise((r) => setTimeout(r, 2000));
  const idleTicks0 = ticksOf(child.pid);
  await new Promise((r) => setTimeout(r, Number(args.idle) * 1000));
  const idleCpuSeconds = (ticksOf(child.pid) - idleTicks0) / 100;
  const latencies = [];
  for (let i = 0; i < Number(args.appends); i += 1) {
    const tag = `f${i.toString(16).padStart(7, '0')}`;
    const lines = turnLines.map((l) =>
      l
        .replace(/00000000-0000-4000-8000-/g, `${tag}-0000-4000-8000-`)
        .replace(/toolu_01/g, `toolu_${tag}`)
        .replace(/msg_01/g, `msg_${tag}`),
    );
    const before = out.length;
    const at = performance.now();
    appendFileSync(file, `${lines.join('\n')}\n`);
    // The new turn's line (printed once its last call has finished and the turn closed or a call ended).
    const printed = await grown(before, 10_000);
    if (printed === null) throw new Error(`append ${i}: nothing printed within 10 s`);
    latencies.push(printed - at);
    await new Promise((r) => setTimeout(r, 300));
  }
  const result = {
    sessionMB: round(size / 1e6, 1),
    startupSeconds: round(startup, 2),
    idleSeconds: Number(args.idle),
    idleCpuSeconds: round(idleCpuSeconds, 2),
    appendToLineMs: {
      p50: round(median(latencies), 1),
      p99: round(percentile(latencies, 99), 1),
      n: latencies.length,
    },
  };
  printTable(`show --follow (line mode) on a ${result.sessionMB} MB session`, [
    { measure: 'start-up, spawn to first line', value: `${result.startupSeconds} s` },
    {
      measure: `CPU over ${result.idleSeconds} s with nothing written`,
      value: `${result.idleCpuSeconds} s`,
    },
    {
      measure: `append → line p50 (n=${latencies.length})`,
      value: `${result.appendToLineMs.p50} ms`,
    },
    { measure: 'append → line p99', value: `${result.appendToLineMs.p99} ms` },
  ]);
  writeResult(args.name, result);
} finally {
  child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
