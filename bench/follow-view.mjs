// npm run bench:follow -- [--size 300MB] [--appends 30] [--idle 60] [--screen]
// `ccotel show --follow` off a terminal (its line mode, the same reading and
// redraw path as the screen): start-up on a long session (spawn to its first
// line), latency from appending a finished call to its line on stdout
// (p50/p99), and CPU while nothing is written (ticks of the process over
// --idle seconds). With --screen, the full-screen view in a real terminal
// (tmux, 100×40): the same figures, read back with capture-pane until the
// pane shows the appended turn.
import { execFileSync, spawn } from 'node:child_process';
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
  screen: { type: 'boolean', default: false },
});
if (args.help === true) {
  process.stdout.write(
    'Usage: node bench/follow-view.mjs [--size 300MB] [--appends N] [--idle SECONDS] [--screen]\n',
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

/**
 * The followed view: `started()` resolves when it first shows a turn, and
 * `after(mark)` when it shows something new since `mark()` was taken.
 */
function lineMode() {
  const child = spawn(process.execPath, [CLI, 'show', '--follow', file], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH, HOME: work },
  });
  let out = '';
  let firstAt = null;
  child.stdout.on('data', (d) => {
    firstAt ??= performance.now();
    out += d.toString('utf8');
  });
  return {
    pid: () => child.pid,
    started: () => poll(() => (out.includes('turn ') ? firstAt : null), 120_000),
    mark: () => out.length,
    // The new turn's line (printed once its call has finished).
    after: (length) => poll(() => (out.length > length ? performance.now() : null), 10_000),
    stop: () => child.kill('SIGTERM'),
  };
}

/** The screen in tmux: a turn newer than the newest shown when `mark()` was taken. */
function screenMode() {
  const name = `ccotel-bench-${process.pid}`;
  const tmux = (...a) => execFileSync('tmux', a, { encoding: 'utf8' });
  const command = `env HOME=${work} ${process.execPath} ${CLI} show --follow ${file}`;
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '40', command);
  const newestTurn = () => {
    const shown = [...tmux('capture-pane', '-p', '-t', name).matchAll(/turn (\d+)/g)];
    return shown.length === 0 ? null : Math.max(...shown.map((m) => Number(m[1])));
  };
  return {
    pid: () => Number(tmux('display', '-p', '-t', name, '#{pane_pid}').trim()),
    started: () => poll(() => (newestTurn() === null ? null : performance.now()), 120_000),
    mark: () => newestTurn() ?? -1,
    after: (turn) => poll(() => ((newestTurn() ?? -1) > turn ? performance.now() : null), 10_000),
    stop: () => tmux('kill-session', '-t', name),
  };
}

/** The time `check()` first gives one (tried every 2 ms), or null after `ms`. */
async function poll(check, ms) {
  const deadline = performance.now() + ms;
  for (;;) {
    const at = check();
    if (at !== null) return at;
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 2));
  }
}

const t0 = performance.now();
const view = args.screen ? screenMode() : lineMode();
try {
  const started = await view.started();
  if (started === null) throw new Error('follow showed no turn in 120 s');
  const startup = (started - t0) / 1000;
  // Let the first read finish printing before idling.
  await new Promise((r) => setTimeout(r, 2000));
  const idleTicks0 = ticksOf(view.pid());
  await new Promise((r) => setTimeout(r, Number(args.idle) * 1000));
  const idleCpuSeconds = (ticksOf(view.pid()) - idleTicks0) / 100;
  const latencies = [];
  for (let i = 0; i < Number(args.appends); i += 1) {
    const tag = `f${i.toString(16).padStart(7, '0')}`;
    const lines = turnLines.map((l) =>
      l
        .replace(/00000000-0000-4000-8000-/g, `${tag}-0000-4000-8000-`)
        .replace(/toolu_01/g, `toolu_${tag}`)
        .replace(/msg_01/g, `msg_${tag}`),
    );
    const before = view.mark();
    const at = performance.now();
    appendFileSync(file, `${lines.join('\n')}\n`);
    const printed = await view.after(before);
    if (printed === null) throw new Error(`append ${i}: nothing shown within 10 s`);
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
  const mode = args.screen ? 'screen in tmux' : 'line mode';
  printTable(`show --follow (${mode}) on a ${result.sessionMB} MB session`, [
    {
      measure: `start-up, spawn to first ${args.screen ? 'turn on screen' : 'line'}`,
      value: `${result.startupSeconds} s`,
    },
    {
      measure: `CPU over ${result.idleSeconds} s with nothing written`,
      value: `${result.idleCpuSeconds} s`,
    },
    {
      measure: `append → ${args.screen ? 'screen' : 'line'} p50 (n=${latencies.length})`,
      value: `${result.appendToLineMs.p50} ms`,
    },
    {
      measure: `append → ${args.screen ? 'screen' : 'line'} p99`,
      value: `${result.appendToLineMs.p99} ms`,
    },
  ]);
  writeResult(args.screen ? `${args.name}-screen` : args.name, { mode, ...result });
} finally {
  view.stop();
  rmSync(work, { recursive: true, force: true });
}
