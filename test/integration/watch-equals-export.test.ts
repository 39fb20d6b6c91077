// Live equals batch: real and hand-written sessions (sub-agents in every
// layout) are written into a projects dir at once, line by line in the order
// their records were stamped, so sub-agent files appear mid-turn, with one
// write in ten split mid-line; the built CLI's `ccotel watch` follows them
// into the real OTLP receiver, is killed with -9 and restarted mid-stream, and
// the collector goes down for a while. Every span the daemon delivered must
// equal the span `ccotel export --out` makes from the final files: same ids,
// same content, none missing. Without a kill nothing is sent twice; across the
// kill only the requests in flight may repeat, byte-identical, and are counted.
import { appendFile, copyFile, mkdir, readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, spawnCli, watchFlags, type CliProcess } from '../support/cli-process.js';
import { CLI, ensureBuilt } from '../support/fault-harness.js';
import { decodeJsonTraces, type DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { FIXTURES, sleep, tempDirs, type Dirs } from './watch-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

const IDLE = '3s';

/** Sessions replayed: every fixture dir with sub-agents or turn-end edge cases, and real files. */
const SESSION_DIRS = [
  'hand/v21-subagents-meta',
  'hand/async-agent',
  'hand/v21-agent-progress',
  'hand/v2-flat-agent-file',
  'hand/v1-parallel-sidechains',
  'hand/interrupt',
  'hand/api-error',
  'hand/parallel-tools-streaming',
  'hand/turn-end-markers',
  'hand/compaction',
  'real-layout/hook-stop',
  'real-layout/compact-command',
  'real-layout/edit-permission-dialog',
];
const REAL_FILES = [
  'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
  'marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl',
  'd-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
  'd-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
];

/** One write: a whole line appended, or a meta sidecar copied whole. */
type Write = ({ file: string; line: string } | { file: string; copyFrom: string }) & {
  /** When the record was stamped (ms); then when to write it, from the run's start. */
  at: number;
};

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.name.endsWith('.jsonl') || e.name.endsWith('.meta.json')) out.push(p);
  }
  return out;
}

const stampOf = (line: string): number | null => {
  try {
    const t = (JSON.parse(line) as { timestamp?: unknown }).timestamp;
    return typeof t === 'string' ? Date.parse(t) : null;
  } catch {
    return null;
  }
};

/**
 * One session's writes in the order Claude Code would make them: the files'
 * lines merged by timestamp (each file's own order kept), a sidecar just
 * before its agent file's first line.
 */
async function sessionWrites(
  sources: string[],
  srcRoot: string,
  dstRoot: string,
): Promise<Write[]> {
  const queues: { dst: string; lines: string[]; stamps: number[] }[] = [];
  const metas = new Map<string, string>();
  for (const src of sources) {
    const dst = join(dstRoot, relative(srcRoot, src));
    if (src.endsWith('.meta.json')) {
      metas.set(dst.replace(/\.meta\.json$/, '.jsonl'), src);
      continue;
    }
    const lines = (await readFile(src, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    let last = 0;
    const stamps = lines.map((l) => (last = stampOf(l) ?? last));
    queues.push({ dst, lines, stamps });
  }
  const writes: Write[] = [];
  for (const [jsonl, meta] of metas)
    if (!queues.some((q) => q.dst === jsonl))
      writes.push({ file: jsonl.replace(/\.jsonl$/, '.meta.json'), copyFrom: meta, at: 0 });
  const at = queues.map(() => 0);
  for (;;) {
    let pick = -1;
    queues.forEach((q, i) => {
      const next = q.stamps[at[i] ?? 0];
      if (next === undefined) return;
      const best = pick < 0 ? undefined : queues[pick]?.stamps[at[pick] ?? 0];
      if (best === undefined || next < best) pick = i;
    });
    if (pick < 0) return paced(writes);
    const q = queues[pick];
    const i = at[pick] ?? 0;
    if (q === undefined) return paced(writes);
    const stamp = q.stamps[i] ?? 0;
    const meta = metas.get(q.dst);
    if (i === 0 && meta !== undefined)
      writes.push({ file: q.dst.replace(/\.jsonl$/, '.meta.json'), copyFrom: meta, at: stamp });
    writes.push({ file: q.dst, line: q.lines[i] ?? '', at: stamp });
    at[pick] = i + 1;
  }
}

/**
 * The session's real pauses, compressed (÷8) and capped at 1.8 s, the whole
 * session fitted into 20 s: long enough that a turn looks closed for longer
 * than watch's 1.5 s settle, shorter than the 3 s idle timeout.
 */
function paced(writes: Write[]): Write[] {
  let t = 0;
  let prev = writes[0]?.at ?? 0;
  const times = writes.map((w) => {
    t += Math.min(Math.max(0, w.at - prev) / 8, 1800) + 3;
    prev = Math.max(prev, w.at);
    return t;
  });
  const fit = Math.min(1, 20_000 / Math.max(1, t));
  writes.forEach((w, i) => (w.at = (times[i] ?? 0) * fit));
  return writes;
}

/** All sessions' writes interleaved so that every session is written over the whole run. */
async function schedule(projects: string): Promise<Write[]> {
  const per: Write[][] = [];
  for (const dir of SESSION_DIRS) {
    const src = join(FIXTURES, dir);
    per.push(
      await sessionWrites(await filesUnder(src), src, join(projects, dir.replace('/', '-'))),
    );
  }
  for (const name of REAL_FILES) {
    const src = join(FIXTURES, 'real', name);
    const id = /([0-9a-f-]{36})\.jsonl$/.exec(name)?.[1] ?? name.replace(/\.jsonl$/, '');
    per.push(await sessionWrites([src], dirname(src), join(projects, `real-${per.length}`)));
    const last = per[per.length - 1] ?? [];
    for (const w of last) w.file = join(dirname(w.file), `${id}.jsonl`);
  }
  // Every session runs from the start at once; a stable sort keeps each session's order.
  return per.flat().sort((a, b) => a.at - b.at);
}

async function perform(w: Write, index: number): Promise<void> {
  await mkdir(dirname(w.file), { recursive: true });
  if ('copyFrom' in w) return copyFile(w.copyFrom, w.file);
  if (index % 10 !== 7) return appendFile(w.file, `${w.line}\n`);
  // One write in ten arrives in two parts, the daemon seeing the first alone.
  const cut = Math.floor(w.line.length / 2);
  await appendFile(w.file, w.line.slice(0, cut));
  await sleep(25);
  await appendFile(w.file, `${w.line.slice(cut)}\n`);
}

/** `node dist/cli/main.js ARGS` in a process of its own, HOME in the temp dir. */
const cli = (args: string[], dirs: Dirs): CliProcess => spawnCli([CLI, ...args], cliEnv(dirs.base));

const watchArgs = (dirs: Dirs, receiver: OtlpReceiver): string[] => [
  'watch',
  ...watchFlags(receiver.url, dirs, { logLevel: 'debug', idleTimeout: IDLE }),
];

/** What a viewer stores of a span: everything but the resource (same settings anyway). */
const canonical = (s: DecodedSpan): string =>
  JSON.stringify({ ...s, resource: undefined }, (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v,
  );

async function exportOut(dirs: Dirs): Promise<Map<string, DecodedSpan>> {
  const out = join(dirs.base, 'export-out.jsonl');
  const proc = cli(
    ['export', dirs.projects, '--out', out, '--state-dir', join(dirs.base, 'export-state')],
    dirs,
  );
  const { code } = await proc.exited;
  expect(code, proc.logs.lines.map((l) => l.msg).join('\n')).toBe(0);
  const spans = new Map<string, DecodedSpan>();
  for (const line of (await readFile(out, 'utf8')).split('\n'))
    if (line.trim() !== '') for (const s of decodeJsonTraces(line)) spans.set(s.spanId, s);
  return spans;
}

/** Resolves once no span has arrived for `quietMs`. */
async function quiet(receiver: OtlpReceiver, quietMs: number, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  let seen = -1;
  while (Date.now() < until) {
    const n = receiver.requests().length;
    if (n === seen) return;
    seen = n;
    await sleep(quietMs);
  }
}

let dirs: Dirs;
let receiver: OtlpReceiver;
const procs: CliProcess[] = [];

describe.skipIf(ON_WINDOWS)(
  'watch equals export, through the built daemon (skipped on Windows: kills and restarts it with POSIX signals)',
  () => {
    beforeAll(() => ensureBuilt(), 120_000);

    beforeEach(async () => {
      dirs = await tempDirs();
      receiver = await startOtlpReceiver();
    });

    afterEach(async () => {
      await Promise.all(procs.splice(0).map((p) => p.stop('SIGKILL')));
      await receiver.stop();
      await dirs.cleanup();
    });

    describe('ccotel watch delivers what ccotel export makes', () => {
      it('many sessions live, kill -9 and restart, collector down: every span equals export --out', async () => {
        const writes = await schedule(dirs.projects);
        const first = cli(watchArgs(dirs, receiver), dirs);
        procs.push(first);
        await first.logs.waitFor((l) => l.msg === 'watching');

        const killAt = Math.floor(writes.length * 0.4);
        const downAt = Math.floor(writes.length * 0.65);
        const upAt = Math.floor(writes.length * 0.8);
        let requestsBeforeKill = 0;
        // kill -9 the moment the receiver accepts a request, before the daemon can
        // have recorded it (or after 2 s): writing goes on meanwhile, then a restart.
        const killAndRestart = async (): Promise<void> => {
          await receiver.waitForSpans(1, 10_000);
          await new Promise<void>((resolve) => {
            const kill = (): void => {
              off();
              clearTimeout(timer);
              requestsBeforeKill = receiver.requests().length;
              first.child.kill('SIGKILL');
              resolve();
            };
            const off = receiver.onSpans(kill);
            const timer = setTimeout(kill, 2000);
          });
          await first.exited;
          const second = cli(watchArgs(dirs, receiver), dirs);
          procs.push(second);
          await second.logs.waitFor((l) => l.msg === 'watching');
        };
        let restarted: Promise<void> | null = null;
        const started = Date.now();
        for (let i = 0; i < writes.length; i += 1) {
          if (i === killAt) restarted = killAndRestart();
          if (i === downAt) await receiver.stop();
          if (i === upAt) await receiver.restart();
          const w = writes[i];
          if (w === undefined) continue;
          await sleep(started + w.at - Date.now());
          await perform(w, i);
        }
        await restarted;
        // Open last turns leave at the idle timeout; then nothing more arrives.
        await sleep(3500);
        await quiet(receiver, 1500, 20_000);

        const expected = await exportOut(dirs);
        const requests = receiver.requests().filter((r) => r.status >= 200 && r.status < 300);
        const beforeKill = requests.filter(
          (r) => receiver.requests().indexOf(r) < requestsBeforeKill,
        );
        const afterKill = requests.filter(
          (r) => receiver.requests().indexOf(r) >= requestsBeforeKill,
        );
        const delivered = requests.flatMap((r) => r.spans);

        const differing = delivered.filter((s) => {
          const want = expected.get(s.spanId);
          return want === undefined || canonical(want) !== canonical(s);
        });
        const got = new Set(delivered.map((s) => s.spanId));
        const missing = [...expected.values()].filter((s) => !got.has(s.spanId));
        const repeatsIn = (rs: typeof requests): string[] => {
          const seen = new Set<string>();
          const twice: string[] = [];
          for (const s of rs.flatMap((r) => r.spans))
            if (seen.has(s.spanId)) twice.push(s.spanId);
            else seen.add(s.spanId);
          return twice;
        };
        const firstIds = new Set(beforeKill.flatMap((r) => r.spans.map((s) => s.spanId)));
        const acrossKill = afterKill.flatMap((r) => r.spans).filter((s) => firstIds.has(s.spanId));
        // In flight at the kill: the last requests the first daemon had answered but not yet recorded.
        const lastBefore = new Set(
          beforeKill.slice(-2).flatMap((r) => r.spans.map((s) => s.spanId)),
        );
        console.log(
          `watch vs export: ${writes.length} writes, ${expected.size} spans from export, ` +
            `${delivered.length} delivered (${requests.length} requests), ${differing.length} differ, ` +
            `${missing.length} missing, ${acrossKill.length} repeated across kill -9`,
        );
        const describeSpan = (s: DecodedSpan): string => {
          const want = expected.get(s.spanId);
          if (want === undefined) return `${s.name}: not in export`;
          const diff = Object.keys({ ...s.attributes, ...want.attributes }).filter(
            (k) => JSON.stringify(s.attributes[k]) !== JSON.stringify(want.attributes[k]),
          );
          return `${s.name} (${String(s.attributes['gen_ai.conversation.id'])}): ${diff.map((k) => `${k} ${JSON.stringify(s.attributes[k])}≠${JSON.stringify(want.attributes[k])}`).join(', ')} ${s.endTimeUnixNano === want.endTimeUnixNano ? '' : `end ${s.endTimeUnixNano}≠${want.endTimeUnixNano} `}${s.parentSpanId === want.parentSpanId ? '' : 'parent≠'}`;
        };
        expect(differing.map(describeSpan)).toEqual([]);
        expect(missing.map((s) => s.name)).toEqual([]);
        expect(repeatsIn(beforeKill)).toEqual([]);
        expect(repeatsIn(afterKill)).toEqual([]);
        for (const s of acrossKill) expect(lastBefore.has(s.spanId), s.name).toBe(true);
        expect(beforeKill.length).toBeGreaterThan(0);
        expect(afterKill.length).toBeGreaterThan(0);
      }, 90_000);
    });
  },
);
