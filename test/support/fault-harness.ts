// Fault-injection harness: a corpus of real transcripts big enough for several
// OTLP batches, the spans a clean export of it must deliver, a tally of what a
// receiver got against that expectation, and the fault matrix the suites print
// and write to reports/fault-matrix.json.
import { createHash } from 'node:crypto';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { DecodedLogRecord, DecodedSpan } from './otlp-decode.js';
import type { OtlpReceiver } from './otlp-receiver.js';
import {
  decodeOtlpLogsRequest,
  decodeOtlpRequest,
  encodeExportResponse,
  encodeLogsResponse,
  encodingOf,
} from './otlp-decode.js';

export const REAL = 'fixtures/real';

/** Outage length for the "receiver down" cases: 10 s in CI, 120 s with CCOTEL_SOAK=1. */
export const SOAK = process.env.CCOTEL_SOAK === '1';
export const OUTAGE_MS = Number(process.env.CCOTEL_OUTAGE_MS ?? (SOAK ? 120_000 : 10_000));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const IDS = /\b(toolu|msg|req|srvtoolu)_[A-Za-z0-9]+/g;

/** A uuid/id rewritten for copy `n`: same shape, different value, consistent across files. */
function renamed(id: string, n: number): string {
  const h = createHash('sha256').update(`${n}:${id}`).digest('hex');
  if (id.includes('-'))
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const [prefix] = id.split('_');
  return `${prefix}_c${n}${h.slice(0, Math.max(8, id.length - (prefix?.length ?? 0) - 3))}`;
}

export interface Corpus {
  /** The projects root (what --projects-dir or a path argument names). */
  root: string;
  /** Project dirs under it, in the order export reads them. */
  projects: string[];
  /** Main transcript files, in the order export reads them. */
  mains: string[];
}

/**
 * fixtures/real copied into <dir>/projects/a-real, plus `copies` renamed copies
 * (every uuid, tool, message and request id rewritten) in b-copy1…: distinct
 * traces and spans, same shapes. fixtures/real alone is 523 spans (two batches);
 * each copy adds as many.
 */
export async function makeCorpus(dir: string, copies = 1): Promise<Corpus> {
  const root = join(dir, 'projects');
  const projects: string[] = [];
  const names = (await readdir(REAL)).filter((n) => n.endsWith('.jsonl')).sort();
  for (let n = 0; n <= copies; n += 1) {
    const project = join(root, n === 0 ? 'a-real' : `b-copy${n}`);
    await mkdir(project, { recursive: true });
    projects.push(project);
    for (const name of names) {
      if (n === 0) await copyFile(join(REAL, name), join(project, name));
      else {
        const text = (await readFile(join(REAL, name), 'utf8'))
          .replace(UUID, (u) => renamed(u, n))
          .replace(IDS, (i) => renamed(i, n));
        await writeFile(
          join(
            project,
            name.replace(UUID, (u) => renamed(u, n)),
          ),
          text,
        );
      }
    }
  }
  const mains: string[] = [];
  for (const p of projects)
    for (const name of (await readdir(p)).sort())
      if (name.endsWith('.jsonl')) mains.push(join(p, name));
  return { root, projects, mains };
}

// ---- counting ----

/** The decoded span as bytes-for-bytes comparable text (bigints as decimal strings). */
export const canonical = (s: DecodedSpan): string =>
  JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
export const keyOf = (s: { traceId: string; spanId: string }): string => `${s.traceId}/${s.spanId}`;

export interface Tally {
  expected: number;
  received: number;
  /** Expected spans never received (must be 0). */
  lost: number;
  /** Extra copies of spans received more than once. */
  repeated: number;
  /** Repeats whose content differs from the first copy (must be 0). */
  repeatedDiffering: number;
  /** Received spans that no clean export produces. */
  unexpected: number;
  /** Expected spans received with content other than the clean export's. */
  mismatched: number;
}

/**
 * What arrived (every accepted copy, in order) against what a clean export sends.
 * `compare: 'last'` checks the latest copy's content (a turn that grew is resent, updated).
 */
export function tally(
  expected: DecodedSpan[],
  received: DecodedSpan[],
  compare: 'first' | 'last' = 'first',
): Tally {
  const want = new Map(expected.map((s) => [keyOf(s), canonical(s)]));
  const first = new Map<string, string>();
  const latest = new Map<string, string>();
  let repeated = 0;
  let repeatedDiffering = 0;
  for (const s of received) {
    const k = keyOf(s);
    const c = canonical(s);
    const before = first.get(k);
    latest.set(k, c);
    if (before === undefined) first.set(k, c);
    else {
      repeated += 1;
      if (before !== c) repeatedDiffering += 1;
    }
  }
  const seen = compare === 'first' ? first : latest;
  let lost = 0;
  let mismatched = 0;
  for (const [k, c] of want) {
    const got = seen.get(k);
    if (got === undefined) lost += 1;
    else if (got !== c) mismatched += 1;
  }
  const unexpected = [...first.keys()].filter((k) => !want.has(k)).length;
  return {
    expected: want.size,
    received: first.size,
    lost,
    repeated,
    repeatedDiffering,
    unexpected,
    mismatched,
  };
}

// ---- repeats a fault may cause ----

/** Traces of spans that were in a request the receiver did not acknowledge, or acknowledged in part. */
export function unacknowledgedTraces(receiver: Pick<OtlpReceiver, 'requests'>): Set<string> {
  return new Set(
    receiver
      .requests()
      .filter((r) => r.status < 200 || r.status >= 300 || (r.rejected ?? 0) > 0)
      .flatMap((r) => r.spans.map((s) => s.traceId)),
  );
}

/** Repeated spans outside the allowed traces, as "name trace/span" (must be none). */
export function strayRepeats(received: DecodedSpan[], allowed: Set<string>): string[] {
  const seen = new Set<string>();
  const stray: string[] = [];
  for (const s of received) {
    const k = keyOf(s);
    if (seen.has(k) && !allowed.has(s.traceId)) stray.push(`${s.name} ${k}`);
    seen.add(k);
  }
  return stray;
}

// ---- the matrix ----

/** The tally of a case that sends nothing (a refusal at start, a skip, a log check). */
export const NO_SPANS: Tally = {
  expected: 0,
  received: 0,
  lost: 0,
  repeated: 0,
  repeatedDiffering: 0,
  unexpected: 0,
  mismatched: 0,
};

export interface MatrixRow extends Tally {
  suite: string;
  case: string;
  /** What the tool did about the fault (exit codes, notes, retries). */
  outcome: string;
  /** Which repeats are allowed here and why. */
  repeatsAllowed: string;
  seconds: number;
  status: 'pass' | 'fail' | 'skipped';
}

const MATRIX_DIR = 'reports/fault-matrix';
const MATRIX_FILE = 'reports/fault-matrix.json';

export function createMatrix(suite: string) {
  const rows: MatrixRow[] = [];
  const header = `${'case'.padEnd(58)} ${'expected'.padStart(8)} ${'received'.padStart(8)} ${'lost'.padStart(5)} ${'repeated'.padStart(8)}  outcome`;
  let printedHeader = false;
  const format = (r: MatrixRow): string =>
    r.status === 'skipped'
      ? `${r.case.padEnd(58)} ${'—'.padStart(8)} ${'—'.padStart(8)} ${'—'.padStart(5)} ${'—'.padStart(8)}  skipped: ${r.outcome}`
      : `${r.case.padEnd(58)} ${String(r.expected).padStart(8)} ${String(r.received).padStart(8)} ${String(r.lost).padStart(5)} ${String(r.repeated).padStart(8)}  ${r.outcome}`;
  return {
    rows,
    add(row: Omit<MatrixRow, 'suite'>): MatrixRow {
      const full = { suite, ...row };
      rows.push(full);
      if (!printedHeader) console.log(`[${suite}] ${header}`);
      printedHeader = true;
      console.log(`[${suite}] ${format(full)}`);
      return full;
    },
    /** A row for a case that did not run here, with the reason (the matrix shows skips too). */
    skip(name: string, reason: string): MatrixRow {
      return this.add({
        case: name,
        ...NO_SPANS,
        outcome: reason,
        repeatsAllowed: '',
        seconds: 0,
        status: 'skipped',
      });
    },
    /** Writes this suite's rows and rebuilds reports/fault-matrix.json from every suite's part. */
    write(): void {
      mkdirSync(MATRIX_DIR, { recursive: true });
      const part = join(MATRIX_DIR, `${suite}.json`);
      writeFileSync(
        `${part}.tmp`,
        JSON.stringify(
          { suite, writtenAt: new Date().toISOString(), outageMs: OUTAGE_MS, soak: SOAK, rows },
          null,
          2,
        ),
      );
      renameSync(`${part}.tmp`, part);
      const parts = readdirSync(MATRIX_DIR)
        .filter((n) => n.endsWith('.json'))
        .sort()
        .map(
          (n) =>
            JSON.parse(readFileSync(join(MATRIX_DIR, n), 'utf8')) as {
              suite: string;
              writtenAt: string;
              rows: MatrixRow[];
            },
        );
      const all = parts.flatMap((p) => p.rows);
      const combined = {
        generatedAt: new Date().toISOString(),
        outageMs: OUTAGE_MS,
        soak: SOAK,
        suites: parts.map((p) => ({
          suite: p.suite,
          writtenAt: p.writtenAt,
          cases: p.rows.length,
        })),
        totals: {
          cases: all.length,
          skipped: all.filter((r) => r.status === 'skipped').length,
          failed: all.filter((r) => r.status === 'fail').length,
          expected: all.reduce((n, r) => n + r.expected, 0),
          lost: all.reduce((n, r) => n + r.lost, 0),
          repeated: all.reduce((n, r) => n + r.repeated, 0),
        },
        rows: all,
      };
      const tmp = `${MATRIX_FILE}.tmp-${process.pid}`;
      writeFileSync(tmp, `${JSON.stringify(combined, null, 2)}\n`);
      renameSync(tmp, MATRIX_FILE);
      console.log(`[${suite}] ${rows.length} cases written to ${MATRIX_FILE}`);
    },
  };
}

// ---- a raw capture server ----

export interface RawCapture {
  url: string;
  bodies: { path: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  stop(): Promise<void>;
}

/** Keeps every request body byte for byte (the shared receiver keeps decoded spans only). */
export async function startRawCapture(): Promise<RawCapture> {
  const bodies: RawCapture['bodies'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      bodies.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const enc = encodingOf(req.headers['content-type']) ?? 'protobuf';
      const out = path === '/v1/logs' ? encodeLogsResponse(enc) : encodeExportResponse(enc);
      res.writeHead(200, {
        'Content-Type': enc === 'json' ? 'application/json' : 'application/x-protobuf',
        'Content-Length': out.length,
      });
      res.end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Decoded spans of captured bodies (the trace requests'). */
export function decodeCaptured(capture: RawCapture): DecodedSpan[] {
  return capture.bodies
    .filter((b) => b.path !== '/v1/logs')
    .flatMap(({ headers, body }) =>
      decodeOtlpRequest(
        body,
        encodingOf(headers['content-type']) ?? 'protobuf',
        headers['content-encoding'],
      ),
    );
}

/** Decoded log records of captured bodies (the logs requests'). */
export function decodeCapturedLogs(capture: RawCapture): DecodedLogRecord[] {
  return capture.bodies
    .filter((b) => b.path === '/v1/logs')
    .flatMap(({ headers, body }) =>
      decodeOtlpLogsRequest(
        body,
        encodingOf(headers['content-type']) ?? 'protobuf',
        headers['content-encoding'],
      ),
    );
}

// ---- the built CLI, for tests that need a real process ----

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');

/** The built CLI in a process of its own, with exactly `env` (a fake HOME, say); never rejects. */
export function runBuilt(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * dist/ as `npm test` leaves it; rebuilt here when older than src/ (running one
 * file with vitest directly). A lock dir keeps two suites from building at once.
 */
/**
 * Why the unprivileged user `nobody` cannot run the built CLI here, or null if
 * it can. Root ignores permission bits, so the unreadable-dir cases run the CLI
 * as nobody (setpriv); that needs setpriv, root, and a checkout whose parent
 * dirs nobody may enter (a clone under a 0700 mktemp dir is not).
 */
export function nobodyCannotRun(): string | null {
  const probe = spawnSync('setpriv', [
    '--reuid=65534',
    '--regid=65534',
    '--clear-groups',
    process.execPath,
    '-e',
    `require('node:fs').accessSync(${JSON.stringify(CLI)})`,
  ]);
  if (probe.error !== undefined) return 'setpriv is not available';
  if (probe.status === 0) return null;
  const stderr = probe.stderr.toString();
  if (/operation not permitted|setresuid/i.test(stderr))
    return 'setpriv cannot switch user (not root)';
  return `user nobody cannot read ${CLI} (its parent dirs are not world-readable, or dist/ is not built)`;
}

export function ensureBuilt(): void {
  const fresh = (): boolean => existsSync(CLI) && statSync(CLI).mtimeMs >= newestMtime('src');
  if (fresh()) return;
  const lock = join('dist', '.build-lock');
  mkdirSync('dist', { recursive: true });
  for (let i = 0; ; i += 1) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 600) throw new Error('timed out waiting for another build of dist/');
      execFileSync('sleep', ['0.1']);
    }
  }
  try {
    if (!fresh()) {
      try {
        execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'pipe' });
      } catch (err) {
        // tsc still emits on type errors (noEmitOnError is off); only a missing CLI is fatal.
        if (!existsSync(CLI)) throw err;
        console.log(
          `dist/ rebuilt with type errors: ${String((err as { stdout?: Buffer }).stdout ?? err).slice(0, 300)}`,
        );
      }
    }
    // tsc leaves untouched outputs alone; mark the build as current.
    const now = new Date();
    utimesSync(CLI, now, now);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Node arguments that run the built `ccotel watch ARGS`. */
export const watchArgv = (args: string[]): string[] => [CLI, 'watch', ...args];

/** A copy of transcript lines with every uuid and tool/message/request id renamed (copy n). */
export function renameIds(text: string, n: number): string {
  return text.replace(UUID, (u) => renamed(u, n)).replace(IDS, (i) => renamed(i, n));
}
