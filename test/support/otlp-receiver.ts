// A real OTLP/HTTP trace receiver on 127.0.0.1 for integration, fault-injection
// and benchmark runs. It speaks the wire protocol the exporters speak (POST
// /v1/traces, protobuf or JSON, optional gzip) and can be scripted to fail in
// the ways a collector fails: error statuses with Retry-After, slow answers,
// connection resets, no answer at all, being down, 200 with partial_success
// (some spans rejected), and 413 for requests above a span limit.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  decodeOtlpLogsRequest,
  decodeOtlpRequest,
  encodeExportResponse,
  encodeLogsResponse,
  encodingOf,
} from './otlp-decode.js';
import type { DecodedLogRecord, DecodedSpan, OtlpEncoding } from './otlp-decode.js';

/** One scripted answer, consumed by one well-formed POST /v1/traces. */
export type Scripted =
  | { status: number; retryAfter?: string; delayMs?: number; body?: string }
  | { reset: true } // destroy the socket (TCP RST) after reading the body, never answer
  | { hang: true } // read the body and never answer, until stop()
  // 200 with partial_success: the last `rejectSpans(n)` of the request's n spans are dropped.
  | { rejectSpans: (spans: number) => number; message: string };

/** What to answer once the script is used up: 'accept' (200) or a fixed Scripted answer. */
export type ReceiverMode = 'accept' | Scripted;

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  contentType: string;
  encoding: OtlpEncoding;
  gzip: boolean;
  bodyBytes: number; // bytes on the wire, i.e. compressed size when gzip
  receivedAt: number; // performance.now() when the whole body had arrived
  spans: DecodedSpan[]; // decoded even when the answer is an error: retries resend them
  status: number; // 0 while unanswered, and for reset/hang
  rejected?: number; // spans answered as rejected (partial_success)
}

export interface ReceiverOptions {
  port?: number; // 0 (default) picks a free port
}

export interface OtlpReceiver {
  readonly url: string; // http://127.0.0.1:<port>; exporters append /v1/traces
  readonly port: number;
  spans(): DecodedSpan[]; // only spans from requests answered 2xx, in answer order
  /** Log records of POST /v1/logs requests answered 2xx, in answer order. */
  logs(): DecodedLogRecord[];
  /** How /v1/logs answers: accept, reject `n` of each request (partial_success), or fail with a status. */
  setLogsMode(mode: LogsMode): void;
  /** Answers for the next /v1/logs requests, one each, before the mode applies again. */
  scriptLogs(answers: LogsMode[]): void;
  requests(): ReceivedRequest[];
  onSpans(cb: (spans: DecodedSpan[]) => void): () => void; // returns unsubscribe
  waitForSpans(n: number, timeoutMs: number): Promise<DecodedSpan[]>;
  script(responses: Scripted[]): void; // appended to the queue
  setMode(mode: ReceiverMode): void;
  /** Answer 413 to any request of more than `max` spans (null: no limit); checked before the script. */
  limitSpans(max: number | null): void;
  connections(): number; // TCP connections accepted since the start
  stop(): Promise<void>; // closes every socket: new connections get ECONNREFUSED
  restart(): Promise<void>; // listens again on the same port
}

const TRACES_PATH = '/v1/traces';
const LOGS_PATH = '/v1/logs';

export type LogsMode = 'accept' | { rejectRecords: number; message: string } | { status: number };

export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<OtlpReceiver> {
  const accepted: DecodedSpan[] = [];
  const acceptedLogs: DecodedLogRecord[] = [];
  let logsMode: LogsMode = 'accept';
  const logsQueue: LogsMode[] = [];
  const received: ReceivedRequest[] = [];
  const listeners = new Set<(spans: DecodedSpan[]) => void>();
  const queue: Scripted[] = [];
  let mode: ReceiverMode = 'accept';
  let spanLimit: number | null = null;
  // Tracked so stop() can cut idle keep-alive and hung connections too;
  // server.close() alone waits for them forever.
  const sockets = new Set<Socket>();
  let connections = 0;
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed)
        reply(res, 500, 'text/plain', Buffer.from(String(err)));
    });
  });
  server.on('connection', (s) => {
    connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'POST' && path === LOGS_PATH) return handleLogs(req, res);
    if (req.method !== 'POST' || path !== TRACES_PATH) {
      req.resume();
      return reply(res, 404, 'text/plain', Buffer.from('not found'));
    }
    const contentType = req.headers['content-type'] ?? '';
    const encoding = encodingOf(contentType);
    const contentEncoding = (req.headers['content-encoding'] ?? '').toLowerCase();
    if (
      !encoding ||
      (contentEncoding !== '' && contentEncoding !== 'gzip' && contentEncoding !== 'identity')
    ) {
      req.resume();
      return reply(
        res,
        415,
        'text/plain',
        Buffer.from(`unsupported ${contentType} ${contentEncoding}`),
      );
    }
    const body = await readBody(req);
    const record: ReceivedRequest = {
      path,
      headers: req.headers,
      contentType,
      encoding,
      gzip: contentEncoding === 'gzip',
      bodyBytes: body.length,
      receivedAt: performance.now(),
      spans: [],
      status: 0,
    };
    received.push(record);
    try {
      record.spans = decodeOtlpRequest(body, encoding, contentEncoding);
    } catch (err) {
      // A malformed body is a bug in the sender; it does not consume the script.
      record.status = 400;
      return reply(res, 400, 'text/plain', Buffer.from(`cannot decode: ${String(err)}`));
    }
    if (spanLimit !== null && record.spans.length > spanLimit) {
      record.status = 413;
      return reply(res, 413, 'text/plain', Buffer.from(`more than ${spanLimit} spans`));
    }
    const answer: ReceiverMode = queue.shift() ?? mode;
    if (answer === 'accept') return accept(record, res, encoding, 200);
    if ('rejectSpans' in answer) {
      const n = Math.min(record.spans.length, answer.rejectSpans(record.spans.length));
      const kept = record.spans.length - n;
      commit({ ...record, spans: record.spans.slice(0, kept) });
      record.status = 200;
      record.rejected = n;
      const partial = n > 0 ? { rejectedSpans: n, errorMessage: answer.message } : undefined;
      return reply(res, 200, contentTypeFor(encoding), encodeExportResponse(encoding, partial));
    }
    if ('reset' in answer) return void req.socket.resetAndDestroy();
    if ('hang' in answer) return; // the socket stays open until the client gives up or stop()
    if (answer.delayMs) await sleep(answer.delayMs);
    if (res.destroyed) return; // client timed out or stop() ran during the delay
    if (answer.retryAfter !== undefined) res.setHeader('Retry-After', answer.retryAfter);
    if (answer.body !== undefined) {
      if (answer.status >= 200 && answer.status < 300) commit(record);
      record.status = answer.status;
      return reply(res, answer.status, contentTypeFor(encoding), Buffer.from(answer.body));
    }
    if (answer.status >= 200 && answer.status < 300)
      return accept(record, res, encoding, answer.status);
    record.status = answer.status;
    reply(res, answer.status, 'text/plain', Buffer.alloc(0));
  }

  async function handleLogs(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const encoding = encodingOf(req.headers['content-type']);
    const contentEncoding = (req.headers['content-encoding'] ?? '').toLowerCase();
    const body = await readBody(req);
    if (!encoding) return reply(res, 415, 'text/plain', Buffer.from('unsupported'));
    let records: DecodedLogRecord[];
    try {
      records = decodeOtlpLogsRequest(body, encoding, contentEncoding);
    } catch (err) {
      return reply(res, 400, 'text/plain', Buffer.from(`cannot decode: ${String(err)}`));
    }
    const mode = logsQueue.shift() ?? logsMode;
    if (mode !== 'accept' && 'status' in mode)
      return reply(res, mode.status, 'text/plain', Buffer.alloc(0));
    if (mode === 'accept') {
      acceptedLogs.push(...records);
      return reply(res, 200, contentTypeFor(encoding), encodeLogsResponse(encoding));
    }
    const n = Math.min(records.length, mode.rejectRecords);
    acceptedLogs.push(...records.slice(0, records.length - n));
    const partial = n > 0 ? { rejectedLogRecords: n, errorMessage: mode.message } : undefined;
    return reply(res, 200, contentTypeFor(encoding), encodeLogsResponse(encoding, partial));
  }

  function accept(
    record: ReceivedRequest,
    res: http.ServerResponse,
    enc: OtlpEncoding,
    status: number,
  ): void {
    commit(record);
    record.status = status;
    reply(res, status, contentTypeFor(enc), encodeExportResponse(enc));
  }

  function commit(record: ReceivedRequest): void {
    accepted.push(...record.spans);
    for (const cb of listeners) cb(record.spans);
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  }

  await listen(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    spans: () => [...accepted],
    logs: () => [...acceptedLogs],
    setLogsMode(m) {
      logsMode = m;
    },
    scriptLogs(answers) {
      logsQueue.push(...answers);
    },
    requests: () => [...received],
    onSpans(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    waitForSpans(n, timeoutMs) {
      if (accepted.length >= n) return Promise.resolve([...accepted]);
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (accepted.length < n) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve([...accepted]);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `waitForSpans: ${accepted.length}/${n} spans after ${timeoutMs} ms (${received.length} requests)`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
      });
    },
    script(responses) {
      queue.push(...responses);
    },
    setMode(m) {
      mode = m;
    },
    limitSpans(max) {
      spanLimit = max;
    },
    connections: () => connections,
    async stop() {
      // A delayed answer that fires after stop() would find its socket destroyed anyway;
      // clearing the timers just lets the process exit promptly.
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async restart() {
      if (!server.listening) await listen(server, port);
    },
  };
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // A client that gives up mid-body may only produce 'close'; settle anyway.
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted before the body was complete'));
    });
  });
}

function contentTypeFor(enc: OtlpEncoding): string {
  return enc === 'json' ? 'application/json' : 'application/x-protobuf';
}

function reply(res: http.ServerResponse, status: number, contentType: string, body: Buffer): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': body.length });
  res.end(body);
}
