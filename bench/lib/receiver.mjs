// A small, fast OTLP/HTTP trace receiver for the benchmarks (the test
// receiver in test/support decodes every span with protobufjs and is too slow,
// and TypeScript). It answers POST /v1/traces with 200, counts requests, bytes
// on the wire and spans (protobuf: a varint walk of ExportTraceServiceRequest,
// resource_spans → scope_spans → spans; JSON: parsed), and, when asked, notes
// the arrival time of marker strings (e.g. message ids a latency writer put in
// its lines; protobuf strings are raw bytes, so a text search finds them).
//
// In-process: startReceiver(). As its own process (so it never shares the
// sender's event loop): fork this file; it sends {type:'ready', url} and
// answers {type:'stats'} messages with {type:'stats', ...}.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** Reads a varint at `at`; returns [value, next]. Values here stay far below 2^53. */
function varint(buf, at) {
  let value = 0;
  let scale = 1;
  let i = at;
  for (;;) {
    const b = buf[i++];
    if (b === undefined) throw new Error('truncated varint');
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, i];
    scale *= 128;
  }
}

/** Calls onField(field, start, end) for each length-delimited field of the message in [start, end). */
function walk(buf, start, end, onField) {
  let i = start;
  while (i < end) {
    const [key, afterKey] = varint(buf, i);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    i = afterKey;
    if (wire === 0) i = varint(buf, i)[1];
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const [length, afterLength] = varint(buf, i);
      onField(field, afterLength, afterLength + length);
      i = afterLength + length;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  if (i !== end) throw new Error('message overruns its length');
}

/** Spans in an ExportTraceServiceRequest, without decoding them. */
export function countProtobufSpans(buf) {
  let spans = 0;
  walk(buf, 0, buf.length, (f1, s1, e1) => {
    if (f1 !== 1) return;
    walk(buf, s1, e1, (f2, s2, e2) => {
      if (f2 !== 2) return;
      walk(buf, s2, e2, (f3) => {
        if (f3 === 2) spans += 1;
      });
    });
  });
  return spans;
}

function countJsonSpans(text) {
  const request = JSON.parse(text);
  let spans = 0;
  for (const rs of request.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? []) spans += (ss.spans ?? []).length;
  return spans;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const nowMs = () => performance.timeOrigin + performance.now();

export function startReceiver({ port = 0, markers = null } = {}) {
  const stats = {
    requests: 0,
    bytes: 0,
    decodedBytes: 0,
    spans: 0,
    errors: 0,
    firstAt: null,
    lastAt: null,
  };
  /** marker → first arrival (ms, nowMs clock). */
  const arrivals = new Map();
  const pattern = markers === null ? null : new RegExp(markers, 'g');
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      const wire = Buffer.concat(chunks);
      const json = (req.headers['content-type'] ?? '').includes('json');
      try {
        if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/traces')) {
          res.writeHead(404).end();
          return;
        }
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(wire) : wire;
        stats.spans += json ? countJsonSpans(body.toString('utf8')) : countProtobufSpans(body);
        stats.requests += 1;
        stats.bytes += wire.length;
        stats.decodedBytes += body.length;
        stats.firstAt ??= at;
        stats.lastAt = at;
        if (pattern !== null) {
          for (const m of body.toString('latin1').matchAll(pattern))
            if (!arrivals.has(m[0])) arrivals.set(m[0], at);
        }
        res
          .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
          .end(json ? '{}' : undefined);
      } catch (err) {
        stats.errors += 1;
        res.writeHead(400).end(String(err));
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        stats: () => ({ ...stats, arrivals: Object.fromEntries(arrivals) }),
        stop: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

// Forked as a child process: serve until told to stop.
if (process.send !== undefined && process.argv.includes('--serve')) {
  const markersArg = process.argv[process.argv.indexOf('--markers') + 1];
  const receiver = await startReceiver({
    markers: process.argv.includes('--markers') ? markersArg : null,
  });
  process.on('message', (message) => {
    if (message?.type === 'stats') {
      // Its own CPU since it started: what the receiver took of the two cores.
      const cpu = process.cpuUsage();
      process.send({
        type: 'stats',
        ...receiver.stats(),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      });
    }
    if (message?.type === 'stop') void receiver.stop().then(() => process.exit(0));
  });
  process.send({ type: 'ready', url: receiver.url });
}
