// npm run bench:rerun -- [--size 200MB] [--seed 1] [--runs 3] [--corpus DIR]
// What a re-run costs: `ccotel export` of a history to a real local OTLP/HTTP
// receiver (its own process), then the same export again with nothing changed,
// then again after one session got one more turn; beside them a no-op export
// (an empty projects dir: start-up alone) and `ccotel watch` start-up (spawn
// to its "watching" line) on a first start (which reads only sessions in use),
// a restart over the same history, and a restart after one more turn. Ratios are against the first export of the same run. The corpus is
// copied first (with its file times): the appended turn never touches it.
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs, parseSize } from './lib/args.mjs';
import { ROOT } from './lib/corpus.mjs';
import { forkReceiver, median, printTable, round, runCcotel, writeResult } from './lib/report.mjs';
import { throughputCorpus } from './lib/throughput-corpus.mjs';
import { spawnWatchDaemon } from './lib/watch-daemon.mjs';

const HELP = `Usage: node bench/export-rerun.mjs [--size 200MB] [--seed N] [--runs N] [--corpus PROJECTS_DIR] [--name NAME]\n`;

const args = benchArgs({
  size: { type: 'string', default: '200MB' },
  seed: { type: 'string', default: '1' },
  runs: { type: 'string', default: '3' },
  corpus: { type: 'string' },
  name: { type: 'string', default: 'export-rerun' },
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}
const runs = Math.max(1, Number(args.runs));
const { projectsDir: source, load } = await throughputCorpus({
  corpus: args.corpus,
  size: parseSize(args.size),
  seed: Number(args.seed),
});
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Main transcript files under a projects dir, with their sizes. */
function mainFiles(projects) {
  const out = [];
  for (const project of readdirSync(projects)) {
    const dir = join(projects, project);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir))
      if (/^[0-9a-f-]{36}\.jsonl$/.test(name))
        out.push({ file: join(dir, name), size: statSync(join(dir, name)).size });
  }
  return out.sort((a, b) => a.size - b.size);
}

/** A prompt and its answer after the file's last line: new uuids, a minute after the last record. */
function appendTurn(file, tag) {
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return null;
      }
    })
    .filter((r) => r !== null);
  const prompt = records.find((r) => r.type === 'user' && typeof r.message?.content === 'string');
  const answer = records.find((r) => r.type === 'assistant' && r.isSidechain !== true);
  const last = records.filter((r) => typeof r.uuid === 'string' && r.timestamp).at(-1);
  if (prompt === undefined || answer === undefined || last === undefined) return false;
  const at = Date.parse(last.timestamp) + 60_000;
  const uuid = (n) => `${tag}-0000-4000-8000-00000000000${n}`;
  const p = {
    ...prompt,
    uuid: uuid(1),
    parentUuid: last.uuid,
    timestamp: new Date(at).toISOString(),
    message: { ...prompt.message, content: 'one more thing' },
  };
  const a = {
    ...answer,
    uuid: uuid(2),
    parentUuid: p.uuid,
    timestamp: new Date(at + 2000).toISOString(),
    requestId: `req_${tag}`,
    message: {
      ...answer.message,
      id: `msg_${tag}`,
      content: [{ type: 'text', text: 'done' }],
      stop_reason: 'end_turn',
    },
  };
  appendFileSync(file, `${JSON.stringify(p)}\n${JSON.stringify(a)}\n`);
  return true;
}

/** `ccotel export` of these paths to the receiver, into the state dir; its figures and the spans it sent. */
async function exportTo(receiver, state, paths, extra = []) {
  const before = (await receiver.stats()).spans;
  const r = await runCcotel([
    'export',
    ...paths,
    '--endpoint',
    receiver.url,
    '--state-dir',
    state,
    ...extra,
  ]);
  if (r.measured === null) throw new Error(`export did not finish: ${r.stderr.slice(-500)}`);
  const spans = (await receiver.stats()).spans - before;
  return {
    seconds: r.measured.seconds,
    peakRssMB: r.measured.peakRssMB,
    code: r.code,
    spans,
    line: r.stdout.trim(),
    stderr: r.stderr,
  };
}

/** Spans a dry run of this one session would send with a fresh state. */
async function spansOf(file) {
  const state = mkdtempSync(join(tmpdir(), 'ccotel-bench-rerun-dry-'));
  try {
    const r = await runCcotel(['export', file, '--dry-run', '--state-dir', state]);
    return Number(/(\d+) spans would be sent/.exec(r.stdout)?.[1] ?? NaN);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** Seconds from spawning `ccotel watch` to its "watching" line; then it is stopped. */
async function watchStartup(projects, state, endpoint) {
  const t0 = performance.now();
  const watch = spawnWatchDaemon({
    cli: CLI,
    projects,
    endpoint,
    stateDir: state,
    logLevel: 'info',
    home: state,
  });
  try {
    for (const deadline = Date.now() + 300_000; Date.now() < deadline;) {
      if (/"msg":"watching"/.test(watch.stderr())) return (performance.now() - t0) / 1000;
      if (watch.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`watch did not start: ${watch.stderr().slice(-500)}`);
  } finally {
    await watch.stop();
  }
}

async function oneRun(run) {
  const work = mkdtempSync(join(tmpdir(), 'ccotel-bench-rerun-'));
  const receiver = await forkReceiver();
  try {
    const projects = join(work, 'projects');
    cpSync(source, projects, { recursive: true, preserveTimestamps: true });
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const state = join(work, 'state');
    const noop = await exportTo(receiver, join(work, 'noop-state'), [empty]);
    const first = await exportTo(receiver, state, [projects]);
    const unchanged = await exportTo(receiver, state, [projects]);
    // A session of median size gets one more turn.
    const sessions = mainFiles(projects);
    const target = sessions.slice(Math.floor(sessions.length / 2)).find((s) => s.size > 0);
    const spansBefore = await spansOf(target.file);
    if (!appendTurn(target.file, `${run.toString(16).padStart(8, '0')}`))
      throw new Error(`no turn to copy in ${target.file}`);
    const turnSpans = (await spansOf(target.file)) - spansBefore;
    const appended = await exportTo(receiver, state, [projects]);
    const watchState = join(work, 'watch-state');
    const watchEmpty = await watchStartup(empty, join(work, 'watch-empty-state'), receiver.url);
    const watchFirst = await watchStartup(projects, watchState, receiver.url);
    const watchRestart = await watchStartup(projects, watchState, receiver.url);
    // And once more after the same session got another turn while the daemon was down.
    if (!appendTurn(target.file, `${(run + 0x100).toString(16).padStart(8, '0')}`))
      throw new Error(`no turn to copy in ${target.file}`);
    const watchAppended = await watchStartup(projects, watchState, receiver.url);
    return {
      noop,
      first,
      unchanged,
      appended,
      turnSpans,
      target: target.file,
      watchEmpty,
      watchFirst,
      watchRestart,
      watchAppended,
    };
  } finally {
    await receiver.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

const results = [];
for (let run = 1; run <= runs; run += 1) {
  const r = await oneRun(run);
  results.push(r);
  process.stdout.write(
    `run ${run}/${runs}: first ${r.first.seconds.toFixed(2)} s, unchanged ${r.unchanged.seconds.toFixed(2)} s, appended ${r.appended.seconds.toFixed(2)} s (${r.appended.spans} spans, the turn has ${r.turnSpans}), no-op ${r.noop.seconds.toFixed(2)} s; watch ${r.watchFirst.toFixed(2)} / ${r.watchRestart.toFixed(2)} s\n`,
  );
}

const med = (pick) => median(results.map(pick));
const cases = {
  'no-op export (empty dir)': {
    seconds: med((r) => r.noop.seconds),
    exitCodes: results.map((r) => r.noop.code),
  },
  'first export': {
    seconds: med((r) => r.first.seconds),
    spans: results[0].first.spans,
    peakRssMB: med((r) => r.first.peakRssMB),
    exitCodes: results.map((r) => r.first.code),
  },
  'second export, nothing changed': {
    seconds: med((r) => r.unchanged.seconds),
    spans: results.map((r) => r.unchanged.spans),
    peakRssMB: med((r) => r.unchanged.peakRssMB),
    exitCodes: results.map((r) => r.unchanged.code),
    ratio: round(
      med((r) => r.unchanged.seconds / r.first.seconds),
      3,
    ),
  },
  'export after one turn appended': {
    seconds: med((r) => r.appended.seconds),
    spans: results.map((r) => r.appended.spans),
    turnSpans: results.map((r) => r.turnSpans),
    peakRssMB: med((r) => r.appended.peakRssMB),
    exitCodes: results.map((r) => r.appended.code),
    ratio: round(
      med((r) => r.appended.seconds / r.first.seconds),
      3,
    ),
  },
  'watch start-up, empty dir': { seconds: med((r) => r.watchEmpty) },
  'watch first start': { seconds: med((r) => r.watchFirst) },
  'watch restart': {
    seconds: med((r) => r.watchRestart),
    ratio: round(
      med((r) => r.watchRestart / r.watchFirst),
      3,
    ),
  },
  'watch restart, one turn appended': {
    seconds: med((r) => r.watchAppended),
    ratio: round(
      med((r) => r.watchAppended / r.watchFirst),
      3,
    ),
  },
};
for (const c of Object.values(cases)) c.seconds = round(c.seconds, 3);
printTable(
  `export re-runs over ${source} (median of ${runs} run${runs > 1 ? 's' : ''}; ratio to the first of its kind in the same run)`,
  Object.entries(cases).map(([name, c]) => ({
    case: name,
    seconds: c.seconds,
    ratio: c.ratio ?? '',
    spans: Array.isArray(c.spans) ? c.spans.join('/') : (c.spans ?? ''),
    'peak RSS MB': c.peakRssMB === undefined ? '' : round(c.peakRssMB, 0),
  })),
);
const exits = [results.flatMap((r) => [r.first.code, r.unchanged.code, r.appended.code])].flat();
const ok =
  exits.every((c) => c === 0) &&
  results.every(
    (r) => r.unchanged.spans === 0 && r.appended.spans === r.turnSpans && r.turnSpans > 0,
  );
writeResult(args.name, {
  corpus: source,
  backgroundLoadPercent: load,
  runs,
  ok,
  appendedTo: results.map((r) => r.target.slice(r.target.lastIndexOf('/') + 1)),
  summaries: results.map((r) => ({
    first: r.first.line,
    unchanged: r.unchanged.line,
    appended: r.appended.line,
  })),
  cases,
});
if (!ok) {
  process.stdout.write(
    `not as expected: ${JSON.stringify(results.map((r) => ({ unchanged: r.unchanged.spans, appended: r.appended.spans, turn: r.turnSpans, stderr: r.appended.stderr.slice(-300) })))}\n`,
  );
  process.exitCode = 1;
}
