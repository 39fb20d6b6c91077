// npm run bench:latency -- [--turns 100] [--sessions 2] [--gap 100] [--pause 300]
// Live latency: `ccotel watch` on a temp projects dir, a writer appending real
// transcript lines (the turn of fixtures/hand/turn-end-markers: prompt, text,
// tool call, tool result, final answer, Stop hook, stop_hook_summary,
// turn_duration; fresh ids and current timestamps per turn), and the receiver
// in its own process noting when each span's marker first arrives. Latency is
// from the append of the line that completes a piece of work to the arrival
// of its span:
//   tool  the line proving the call over → the execute_tool span (its tool_use id):
//         its tool_result AND its response's last line, i.e. the thread's next
//         response (core/finality.ts); the table also shows that wait, from
//         the tool_result to the next response (a span waiting for its response)
//   chat  the turn-end record after the final answer → that answer's chat span
//   turn  the turn_duration line → the turn's root span (its prompt label;
//         turn_duration proves the turn over, core/finality.ts)
// Clocks: performance.timeOrigin + now() in both processes (same machine).
// --history 5MB,500MB runs it once per size, each session file first holding
// that much history (turns of the same template, dated two days back, each
// with a 50 KB tool result, as a Read of a large file gives), and reports the
// daemon's CPU time per appended line (utime+stime from /proc, over the
// measured turns): a live session must cost per line, not per session size.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs, formatSize, parseSize } from './lib/args.mjs';
import { FIXTURES, ROOT, idPattern, makeRewriter } from './lib/corpus.mjs';
import { nowMs } from './lib/receiver.mjs';
import { spawnWatchDaemon } from './lib/watch-daemon.mjs';
import {
  backgroundLoad,
  forkReceiver,
  printTable,
  round,
  within,
  writeResult,
} from './lib/report.mjs';

const HELP = `Usage: node bench/live-latency.mjs [--turns N] [--sessions N] [--gap MS] [--pause MS] [--history SIZES] [--cli PATH] [--name NAME]

  --turns     turns written in all (default 100)
  --sessions  sessions written to in turn (default 2)
  --gap       pause between the lines of a turn, ms (default 100: Claude Code
              flushes its transcript about every 100 ms)
  --pause     pause between turns, ms (default 300)
  --history   comma-separated sizes of history each session holds before the
              daemon starts (e.g. 5MB,500MB): one run per size, compared
  --cli       the ccotel entry point (default dist/cli/main.js)
`;

const args = benchArgs({
  turns: { type: 'string', default: '100' },
  sessions: { type: 'string', default: '2' },
  gap: { type: 'string', default: '100' },
  pause: { type: 'string', default: '300' },
  history: { type: 'string', default: '' },
  cli: { type: 'string', default: join(ROOT, 'dist', 'cli', 'main.js') },
  name: { type: 'string', default: 'latency' },
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

const TEMPLATE = join(
  FIXTURES,
  'hand',
  'turn-end-markers',
  'f150e2bc-3a90-4d26-9c22-337ac7852b1c.jsonl',
);
const TEMPLATE_SESSION = 'f150e2bc-3a90-4d26-9c22-337ac7852b1c';
const TEMPLATE_PROMPT = 'How many posts are drafts?';
/** Lines 2-9 of the template: one whole turn. */
const turnLines = readFileSync(TEMPLATE, 'utf8').split('\n').slice(1, 9);
const turnCount = Number(args.turns);
const sessionCount = Math.max(1, Number(args.sessions));
const gap = Number(args.gap);
const pause = Number(args.pause);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const historySizes = args.history === '' ? [null] : args.history.split(',').map(parseSize);
/** Text added to each history turn's tool result: history turns of ~56 KB. */
const HISTORY_PAD = 'x'.repeat(50 * 1024);

/** VmHWM (peak resident set) of a live process, from /proc. */
function peakRssOf(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : round(Number(kb) / 1024, 1);
  } catch {
    return null;
  }
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** utime + stime of a live process, ms (from /proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

async function main() {
  const results = [];
  for (const size of historySizes) results.push(await runOnce(size));
  if (historySizes[0] === null) return;
  const rows = results.map((r) => ({
    history: formatSize(r.historyBytes),
    'history lines': r.historyLines,
    'daemon CPU ms/line': r.cpuMsPerLine,
    'x smallest': round(r.cpuMsPerLine / results[0].cpuMsPerLine, 2),
    'tool p50 ms': r.tool['p50 ms'],
    'tool p99 ms': r.tool['p99 ms'],
    'daemon peak RSS MB': r.daemonPeakRssMB,
  }));
  printTable('daemon CPU per appended line, by history already in the session', rows);
  writeResult(args.name, { byHistory: results });
}

async function runOnce(historyBytes) {
  const dir = mkdtempSync(join(tmpdir(), 'ccotel-bench-latency-'));
  const projects = join(dir, 'projects');
  const project = join(projects, '-bench-live');
  mkdirSync(project, { recursive: true });
  const stateDir = join(dir, 'state');
  const sessions = prepareSessions(project, historyBytes);
  const load = await backgroundLoad(1000);
  // Ids keep their length when rewritten; an exact length keeps the next protobuf tag byte out of the match.
  const toolIdLength =
    /"tool_use_id":"toolu_([A-Za-z0-9]+)"/.exec(turnLines.join('\n'))?.[1]?.length ?? 24;
  const msgIdLength = /"id":"msg_([A-Za-z0-9]+)"/.exec(turnLines.join('\n'))?.[1]?.length ?? 24;
  const receiver = await forkReceiver(
    `toolu_[A-Za-z0-9]{${toolIdLength}}|msg_[A-Za-z0-9]{${msgIdLength}}|bench turn -?\\d+`,
  );
  const watch = spawnWatchDaemon({
    cli: args.cli,
    projects,
    endpoint: receiver.url,
    stateDir,
    logLevel: 'warn',
    home: dir,
  });
  const daemon = watch.child;
  const { exited } = watch;
  let stopped = false;
  const stopAll = async () => {
    if (stopped) return;
    stopped = true;
    await watch.stop();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  // The daemon gets a moment: one that exits at once fails the run.
  const early = await within(exited, 1500, null);
  if (early !== null) {
    await stopAll();
    throw new Error(`ccotel watch exited with code ${early}: ${watch.stderr().trim().slice(-500)}`);
  }

  try {
    return await measure(receiver, daemon, load, watch.stderr, sessions, historyBytes);
  } finally {
    await stopAll();
  }
}

/** The sessions written to, each with `bytes` of history first (its lines dated two days back). */
function prepareSessions(project, bytes) {
  const patterns = idPattern();
  const sessions = Array.from({ length: sessionCount }, (_, s) => ({
    id: null,
    file: null,
    lastUuid: null,
    s,
    patterns,
    project,
    historyLines: 0,
  }));
  if (bytes === null) return sessions;
  let at = Date.now() - 2 * 86_400_000;
  for (const session of sessions) {
    const chunks = [];
    let written = 0;
    for (let k = 0; written < bytes; k += 1) {
      for (const line of turnText(session, -1_000_000 - k * sessionCount - session.s, () => {
        at += 1000;
        return new Date(at).toISOString();
      })) {
        const padded = line.text.replace(
          /("content":")([^"]*"[^}]*"is_error")/,
          `$1${HISTORY_PAD}$2`,
        );
        chunks.push(padded, '\n');
        written += padded.length + 1;
        session.historyLines += 1;
      }
      if (chunks.length > 2000) {
        appendFileSync(session.file, chunks.join(''));
        chunks.length = 0;
      }
    }
    appendFileSync(session.file, chunks.join(''));
  }
  return sessions;
}

/** The lines of one turn of the template, rewritten for a session (ids fresh, times from stamp()), one at a time. */
function* turnText(session, index, stamp) {
  const rewrite = makeRewriter(
    { idPattern: session.patterns },
    7,
    index,
    0,
    session.id === null ? new Map() : new Map([[TEMPLATE_SESSION, session.id]]),
  );
  const marker = `bench turn ${index}`;
  for (const [k, template] of turnLines.entries()) {
    let text = rewrite(template)
      .replace(/"timestamp":"[^"]+"/g, `"timestamp":"${stamp()}"`)
      .replace(TEMPLATE_PROMPT, `${marker}: how many posts are drafts?`);
    const parsed = JSON.parse(text);
    if (session.id === null) {
      session.id = parsed.sessionId;
      session.file = join(session.project, `${session.id}.jsonl`);
    }
    if (k === 0 && session.lastUuid !== null)
      text = text.replace('"parentUuid":null', `"parentUuid":"${session.lastUuid}"`);
    session.lastUuid = parsed.uuid ?? session.lastUuid;
    yield { text, parsed, marker };
  }
}

async function measure(receiver, daemon, load, daemonStderr, sessions, historyBytes) {
  /** turn → { tool id, its result's append time, turn marker, last line's append time } */
  const written = [];
  const writeTurn = async (index) => {
    const session = sessions[((index % sessionCount) + sessionCount) % sessionCount];
    const marker = `bench turn ${index}`;
    const record = {
      index,
      marker,
      toolId: null,
      resultAt: null,
      responseOverAt: null,
      endAt: null,
      answerId: null,
      afterAnswerAt: null,
    };
    let answered = false;
    let k = 0;
    for (const { text: line, parsed } of turnText(session, index, () => new Date().toISOString())) {
      const toolResult = Array.isArray(parsed.message?.content)
        ? parsed.message.content.find((b) => b.type === 'tool_result')
        : undefined;
      appendFileSync(session.file, `${line}\n`);
      const at = nowMs();
      if (toolResult !== undefined) {
        record.toolId = toolResult.tool_use_id;
        record.resultAt = at;
      } else if (
        record.resultAt !== null &&
        record.responseOverAt === null &&
        parsed.type === 'assistant'
      ) {
        // The next response: the one that issued the call has written its last line.
        record.responseOverAt = at;
      }
      if (parsed.type === 'system' && parsed.subtype === 'turn_duration') record.endAt = at;
      // The final answer's chat span can leave once the thread moves past it: here the first turn-end record.
      if (answered && record.afterAnswerAt === null && parsed.type === 'system')
        record.afterAnswerAt = at;
      if (parsed.type === 'assistant' && parsed.message?.stop_reason === 'end_turn') {
        record.answerId = parsed.message.id;
        answered = true;
      }
      k += 1;
      if (k < turnLines.length) await sleep(gap);
    }
    written.push(record);
  };

  // One warm-up turn per session, waited for: the daemon has started and found the files.
  for (let s = 0; s < sessionCount; s += 1) await writeTurn(-1 - s);
  // A daemon reading hundreds of MB of history first needs longer to start.
  const warmDeadline = Date.now() + (historyBytes === null ? 30_000 : 300_000);
  while (Date.now() < warmDeadline) {
    const got = (await receiver.stats()).arrivals;
    if (written.every((w) => got[w.marker] !== undefined)) break;
    await sleep(100);
  }
  // Start-up work on a long history (reading it, the first fold, collecting what
  // the fold dropped) can outlast the warm-up turns: measure once the daemon is idle.
  for (let quiet = 0, last = cpuMsOf(daemon.pid), t = 0; quiet < 2 && t < 240; t += 1) {
    await sleep(500);
    const now = cpuMsOf(daemon.pid);
    quiet = now !== null && last !== null && now - last <= 20 ? quiet + 1 : 0;
    last = now;
  }
  const started = nowMs();
  const cpuBefore = cpuMsOf(daemon.pid);
  for (let i = 0; i < turnCount; i += 1) {
    await writeTurn(i);
    await sleep(pause);
  }
  const deadline = Date.now() + 15_000;
  let arrivals = {};
  while (Date.now() < deadline) {
    arrivals = (await receiver.stats()).arrivals;
    if (written.every((w) => arrivals[w.marker] !== undefined && arrivals[w.toolId] !== undefined))
      break;
    await sleep(100);
  }
  const cpuAfter = cpuMsOf(daemon.pid);
  const stats = await receiver.stats();
  const daemonPeakRssMB = peakRssOf(daemon.pid);
  const linesWritten = turnCount * turnLines.length;
  const cpuMsPerLine =
    cpuBefore === null || cpuAfter === null
      ? null
      : round((cpuAfter - cpuBefore) / linesWritten, 3);

  const measured = written.filter((w) => w.index >= 0);
  const tool = measured.flatMap((w) =>
    arrivals[w.toolId] === undefined
      ? []
      : [arrivals[w.toolId] - Math.max(w.resultAt, w.responseOverAt ?? w.resultAt)],
  );
  const toolWait = measured.flatMap((w) =>
    arrivals[w.toolId] === undefined ? [] : [arrivals[w.toolId] - w.resultAt],
  );
  const turn = measured.flatMap((w) =>
    arrivals[w.marker] === undefined ? [] : [arrivals[w.marker] - w.endAt],
  );
  const chat = measured.flatMap((w) =>
    arrivals[w.answerId] === undefined || w.afterAnswerAt === null
      ? []
      : [arrivals[w.answerId] - w.afterAnswerAt],
  );
  const row = (name, xs) => ({
    span: name,
    samples: xs.length,
    missing: measured.length - xs.length,
    'p50 ms': xs.length ? round(percentile(xs, 50), 1) : null,
    'p95 ms': xs.length ? round(percentile(xs, 95), 1) : null,
    'p99 ms': xs.length ? round(percentile(xs, 99), 1) : null,
    'max ms': xs.length ? round(Math.max(...xs), 1) : null,
  });
  const rows = [
    row('execute_tool (after its response is over)', tool),
    row('chat, final answer (after stop_hook_summary)', chat),
    row('turn root (after turn_duration)', turn),
    row('execute_tool, from tool_result (waiting for its response)', toolWait),
  ];
  const history =
    historyBytes === null
      ? ''
      : `, ${formatSize(historyBytes)} of history per session; daemon CPU ${cpuMsPerLine} ms per appended line`;
  printTable(
    `live latency, append → receipt (${measured.length} turns over ${sessionCount} sessions, ${((nowMs() - started) / 1000).toFixed(0)} s${history})`,
    rows,
  );
  const result = {
    backgroundLoadPercent: load,
    historyBytes,
    historyLines: sessions.reduce((n, s) => n + s.historyLines, 0),
    cpuMsPerLine,
    turns: measured.length,
    sessions: sessionCount,
    gapMs: gap,
    pauseMs: pause,
    tool: rows[0],
    chat: rows[1],
    turn: rows[2],
    toolFromResult: rows[3],
    daemonPeakRssMB,
    receiver: { requests: stats.requests, spans: stats.spans, errors: stats.errors },
    daemonStderr: daemonStderr().trim().split('\n').slice(-5),
  };
  if (historyBytes === null) writeResult(args.name, result);
  return result;
}

await main();
