// Child-process entry for the measured workloads: `node workloads.mjs <name> '<json options>'`.
// Each runs alone in its own process so that peak RSS (/proc VmHWM, lib/peak-rss.mjs) is the
// workload's own, and prints one JSON line as its last output.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { peakRssMB } from './peak-rss.mjs';

// CCOTEL_BENCH_DIST points at another build (an experiment) instead of ./dist.
const DIST =
  process.env.CCOTEL_BENCH_DIST === undefined
    ? new URL('../../dist/', import.meta.url)
    : new URL(`file://${process.env.CCOTEL_BENCH_DIST.replace(/\/?$/, '/')}`);
const dist = (path) => import(new URL(path, DIST).href);

/** The default price table and the resource every workload's requests carry. */
async function pricesAndResource() {
  const [{ loadPriceTable }, { buildResource }] = await Promise.all([
    dist('adapters/config/price-file.js'),
    dist('adapters/otlp/resource.js'),
  ]);
  const resource = buildResource({
    serviceName: 'claude-code',
    attributes: { 'host.name': 'bench' },
  });
  return { prices: await loadPriceTable(), resource };
}

/** Every transcript file under a dir, in a stable order. */
export async function jsonlFiles(dir) {
  const out = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await jsonlFiles(path)));
    else if (e.name.endsWith('.jsonl')) out.push(path);
  }
  return out;
}

async function bytesOf(files) {
  let n = 0;
  for (const f of files) n += (await stat(f)).size;
  return n;
}

/**
 * The naive reference: read each file whole, JSON.parse each line. Reads are
 * synchronous: on the benchmark machine fs.promises.readFile per file was
 * 2.4x slower, and the baseline should be the best a naive loop does.
 */
async function baseline({ dir }) {
  const files = await jsonlFiles(dir);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  let objects = 0;
  let failed = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    bytes += Buffer.byteLength(text);
    for (const line of text.split('\n')) {
      if (line === '') continue;
      lines += 1;
      try {
        if (JSON.parse(line) !== null) objects += 1;
      } catch {
        failed += 1;
      }
    }
  }
  return {
    seconds: (performance.now() - started) / 1000,
    files: files.length,
    bytes,
    lines,
    objects,
    failed,
  };
}

/**
 * The full conversion: find sessions, read and fold their files, assemble,
 * build spans, encode OTLP protobuf in export-sized batches. No network.
 *   mode 'reference': the path before the speed work (lib/reference-pipeline.mjs)
 *   mode 'shipped':   the shipped path on the calling thread (streamSessionSpans, encodeSpans)
 *   mode 'whole':     the same, each session read whole first (sessionSpans)
 *   mode 'workers':   the shipped path with sessions spread over worker threads
 * encoder 'sdk' swaps the direct protobuf writer for the SDK serializer (history figures).
 */
async function convert({
  dir,
  mode = 'shipped',
  content = 'labels',
  protocol = 'http/protobuf',
  workers = 2,
  encoder = 'direct',
}) {
  const [
    { findSessions },
    { sessionSpans, streamSessionSpans },
    { encodeSpans, assembleRequest },
    { encodeSpansWithSdk },
    { MAX_BATCH_SPANS },
    pool,
    reference,
  ] = await Promise.all([
    dist('adapters/files/session-files.js'),
    import('./whole-session.mjs'),
    dist('adapters/otlp/encode.js'),
    import('./sdk-encode.mjs'),
    dist('app/export/export.js'),
    import('./session-spans-pool.mjs'),
    mode === 'reference' ? import('./reference-pipeline.mjs') : Promise.resolve(null),
  ]);
  const { prices, resource } = await pricesAndResource();
  const options = { content, maxAttributeBytes: 2048 };
  // encoder 'sdk' keeps the shipped reader with the SDK serializer: the reader's share of the gain, measured alone.
  const encode =
    reference !== null
      ? reference.encodeSpansReference
      : encoder === 'sdk'
        ? encodeSpansWithSdk
        : encodeSpans;
  const started = performance.now();
  const sessions = await findSessions(dir);
  const digest = createHash('sha1');
  const totals = {
    sessions: sessions.length,
    turns: 0,
    spans: 0,
    requests: 0,
    otlpBytes: 0,
    warnings: 0,
    ignoredLines: 0,
    segments: 0,
  };
  let batch = [];
  let ranges = [];
  // As export does: protobuf requests assembled from the span fields each turn
  // was hashed with (TurnSpans.encoded), not encoded a second time.
  const fromFields = mode !== 'reference' && encoder === 'direct' && protocol === 'http/protobuf';
  const flush = () => {
    if (batch.length === 0) return;
    const body = fromFields ? assembleRequest(ranges, resource) : encode(batch, resource, protocol);
    totals.requests += 1;
    totals.otlpBytes += body.byteLength;
    digest.update(body);
    batch = [];
    ranges = [];
  };
  const take = (session) => {
    totals.warnings += session.warnings.length;
    totals.ignoredLines += session.ignoredLines;
    for (const turn of session.turns) {
      totals.turns += 1;
      for (let from = 0; from < turn.spans.length;) {
        const to = Math.min(turn.spans.length, from + MAX_BATCH_SPANS - batch.length);
        for (let i = from; i < to; i++) batch.push(turn.spans[i]);
        ranges.push({ encoded: turn.encoded, from, to });
        totals.spans += to - from;
        from = to;
        if (batch.length >= MAX_BATCH_SPANS) flush();
      }
    }
  };
  if (mode === 'workers') {
    // Workers convert and encode; this thread only cuts the encoded spans into export-sized requests.
    let ranges = [];
    let inBatch = 0;
    const send = () => {
      if (inBatch === 0) return;
      const body = assembleRequest(ranges, resource);
      totals.requests += 1;
      totals.otlpBytes += body.byteLength;
      digest.update(body);
      ranges = [];
      inBatch = 0;
    };
    for await (const session of pool.mapEncodedSessions(sessions, prices, options, { workers })) {
      totals.warnings += session.warnings.length;
      totals.ignoredLines += session.ignoredLines;
      for (const turn of session.turns) {
        totals.turns += 1;
        for (let from = turn.from; from < turn.to;) {
          const to = Math.min(turn.to, from + MAX_BATCH_SPANS - inBatch);
          ranges.push({ encoded: session.encoded, from, to });
          inBatch += to - from;
          totals.spans += to - from;
          from = to;
          if (inBatch >= MAX_BATCH_SPANS) send();
        }
      }
    }
    send();
  } else if (mode === 'shipped') {
    // As export converts: a segment of turns at a time (bounded memory on huge transcripts).
    for (const files of sessions) {
      const read = await streamSessionSpans(files, prices, options, (turns) =>
        take({ warnings: [], ignoredLines: 0, turns }),
      );
      totals.warnings += read.warnings.length;
      totals.ignoredLines += read.ignoredLines;
      totals.segments += read.segments;
    }
  } else {
    // 'whole': each session read whole, then converted (the shipped path before segments).
    const convertOne = mode === 'reference' ? reference.sessionSpansReference : sessionSpans;
    for (const files of sessions)
      take(pool.slimSessionSpans(await convertOne(files, prices, options)));
  }
  flush();
  const seconds = (performance.now() - started) / 1000;
  const files = await jsonlFiles(dir);
  return {
    seconds,
    mode,
    encoder: reference !== null ? 'sdk' : encoder,
    workers: mode === 'workers' ? workers : 0,
    files: files.length,
    bytes: await bytesOf(files),
    ...totals,
    digest: digest.digest('hex'),
  };
}

/**
 * The exporter's wire alone: every request of the corpus is built first
 * (untimed), then sent one after another, each awaited, as export sends them.
 */
async function send({ dir, url, compression = 'none' }) {
  const [{ findSessions }, { sessionSpans }, { encodeSpans }, { MAX_BATCH_SPANS }, { sendOtlp }] =
    await Promise.all([
      dist('adapters/files/session-files.js'),
      import('./whole-session.mjs'),
      dist('adapters/otlp/encode.js'),
      dist('app/export/export.js'),
      dist('adapters/otlp/http-sender.js'),
    ]);
  const { prices, resource } = await pricesAndResource();
  const bodies = [];
  let batch = [];
  let spans = 0;
  for (const files of await findSessions(dir)) {
    for (const turn of (
      await sessionSpans(files, prices, { content: 'labels', maxAttributeBytes: 2048 })
    ).turns) {
      for (const span of turn.spans) {
        batch.push(span);
        spans += 1;
        if (batch.length >= MAX_BATCH_SPANS) {
          bodies.push(encodeSpans(batch, resource, 'http/protobuf'));
          batch = [];
        }
      }
    }
  }
  if (batch.length > 0) bodies.push(encodeSpans(batch, resource, 'http/protobuf'));
  const options = {
    url: `${url}/v1/traces`,
    headers: {},
    contentType: 'application/x-protobuf',
    compression,
    timeoutMs: 30_000,
    maxRetries: 0,
    initialBackoffMs: 100,
    maxBackoffMs: 100,
    maxRetryAfterMs: 100,
  };
  const started = performance.now();
  let failed = 0;
  for (const body of bodies) if ((await sendOtlp(body, options)).status !== 'success') failed += 1;
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds,
    spans,
    requests: bodies.length,
    failed,
    bodyBytes: bodies.reduce((n, b) => n + b.byteLength, 0),
  };
}

/**
 * Where a session's memory goes (run with --expose-gc): live heap after
 * reading and folding its lines, after assembling the model, after building
 * every turn's spans, for the largest session under `dir`.
 */
async function stages({ dir, content = 'labels' }) {
  const [{ findSessions }, { loadSession }, { finish }, spans, { loadPriceTable }] =
    await Promise.all([
      dist('adapters/files/session-files.js'),
      import('./whole-session.mjs'),
      dist('core/model/assemble/finish.js'),
      dist('app/read/session-spans.js'),
      dist('adapters/config/price-file.js'),
    ]);
  const prices = await loadPriceTable();
  const { windowsOf } = await dist('core/cost/pricing.js');
  const options = { content, maxAttributeBytes: 2048 };
  const heap = () => {
    globalThis.gc?.();
    return Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
  };
  const sessions = await findSessions(dir);
  let largest = sessions[0];
  for (const s of sessions)
    if ((await stat(s.mainFile)).size > (await stat(largest.mainFile)).size) largest = s;
  const started = heap();
  const loaded = await loadSession(largest, spans.parseOptionsFor(options));
  const afterLoad = heap();
  const model = finish(loaded.state, windowsOf(prices));
  const afterModel = heap();
  const built = spans.spansOfModel(model, prices, options);
  const afterSpans = heap();
  return {
    file: largest.mainFile,
    bytes: (await stat(largest.mainFile)).size,
    entries: loaded.state.entries.length,
    turns: built.turns.length,
    spans: built.turns.reduce((n, t) => n + t.spans.length, 0),
    heapMB: {
      start: started,
      records: round1(afterLoad - started),
      model: round1(afterModel - afterLoad),
      spans: round1(afterSpans - afterModel),
      total: afterSpans,
    },
  };
}

const round1 = (x) => Math.round(x * 10) / 10;

/** CPU time of each stage of the shipped path over the corpus: where the time goes. */
async function phases({ dir }) {
  const [
    { findSessions },
    { loadSession },
    { finish },
    spans,
    { assembleRequest },
    { MAX_BATCH_SPANS },
  ] = await Promise.all([
    dist('adapters/files/session-files.js'),
    import('./whole-session.mjs'),
    dist('core/model/assemble/finish.js'),
    dist('app/read/session-spans.js'),
    dist('adapters/otlp/encode.js'),
    dist('app/export/export.js'),
  ]);
  const { prices, resource } = await pricesAndResource();
  const { windowsOf } = await dist('core/cost/pricing.js');
  const options = { content: 'labels', maxAttributeBytes: 2048 };
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const ms = { discover: 0, readAndFold: 0, assemble: 0, buildSpans: 0, encode: 0 };
  let t = cpu();
  const sessions = await findSessions(dir);
  ms.discover = cpu() - t;
  let batch = [];
  let inBatch = 0;
  for (const files of sessions) {
    t = cpu();
    const loaded = await loadSession(files, spans.parseOptionsFor(options));
    ms.readAndFold += cpu() - t;
    t = cpu();
    const model = finish(loaded.state, windowsOf(prices));
    ms.assemble += cpu() - t;
    t = cpu();
    const { turns } = spans.spansOfModel(model, prices, options);
    ms.buildSpans += cpu() - t;
    t = cpu();
    // Requests assembled from each turn's span fields, as export builds them.
    for (const turn of turns) {
      for (let from = 0; from < turn.spans.length;) {
        const to = Math.min(turn.spans.length, from + MAX_BATCH_SPANS - inBatch);
        batch.push({ encoded: turn.encoded, from, to });
        inBatch += to - from;
        from = to;
        if (inBatch >= MAX_BATCH_SPANS) {
          assembleRequest(batch, resource);
          batch = [];
          inBatch = 0;
        }
      }
    }
    ms.encode += cpu() - t;
  }
  t = cpu();
  if (batch.length > 0) assembleRequest(batch, resource);
  ms.encode += cpu() - t;
  return { cpuMs: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])) };
}

const WORKLOADS = { baseline, convert, send, stages, phases };

async function main() {
  const [name, json = '{}'] = process.argv.slice(2);
  const run = WORKLOADS[name];
  if (run === undefined) throw new Error(`unknown workload ${name}`);
  const result = await run(JSON.parse(json));
  const usage = process.resourceUsage();
  // The process's own peak resident set (lib/peak-rss.mjs: not getrusage's, which includes the parent's).
  process.stdout.write(
    `\n${JSON.stringify({ workload: name, ...result, peakRssMB: peakRssMB(), cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 })}\n`,
  );
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === new URL(`file://${process.argv[1]}`).href
) {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
