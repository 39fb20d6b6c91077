// One attempt at an OTLP request over HTTP(S), and the sender that composes it
// with retries and compression (otlp-transport.ts). We do not use the SDK
// exporter's transport: its retries stop inside one timeout, and the batch
// processor then drops the spans; a backfill and a daemon need to decide
// themselves when to give up (otlp-retry.ts).
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { gzipSync } from 'node:zlib';
import { readPartialSuccess, type PartialSuccess } from './response.js';
import {
  isRetryableStatus,
  parseRetryAfter,
  RetryingTransport,
  type RetryOptions,
} from './retry.js';
import type { AttemptFailure, ExportResponse, OtlpTransport } from './transport.js';

export type { AttemptFailure, ExportResponse } from './transport.js';

export interface HttpOptions {
  /** Full URL of the traces endpoint (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
  contentType: string;
  compression: 'gzip' | 'none';
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** TLS: CA bundle, client certificate and key (PEM), when set. */
  tls?: { ca?: string; cert?: string; key?: string };
  signal?: AbortSignal;
  /** Connections to reuse (keepAliveAgent); absent: one connection per attempt. */
  agent?: HttpAgent;
}

/** The HTTP attempt's options and the retry policy's. */
export type SenderOptions = HttpOptions & RetryOptions;

export type { PartialSuccess } from './response.js';
export { parseRetryAfter } from './retry.js';

type Answer = { failure: AttemptFailure } | { partial: PartialSuccess | null };

/** How long a connection may stay idle between requests before we close it. */
const IDLE_CONNECTION_MS = 4000;

/**
 * Connections to one endpoint, kept open between requests: a backfill sends
 * hundreds of requests back to back, and opening a connection for each cost
 * both processes a TCP handshake (and a TLS one) per request. An idle
 * connection is closed after IDLE_CONNECTION_MS, or a second before the
 * server's Keep-Alive hint, so that a request rarely meets one the server has
 * just closed (and if it does, the reset is retried like any other).
 */
export function keepAliveAgent(url: string): HttpAgent {
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  // Not parsed here: a malformed URL fails at the first attempt, with its own message.
  return /^https:/i.test(url) ? new HttpsAgent(options) : new HttpAgent(options);
}

/** One POST of the body, resolved once with the collector's answer or why there was none. */
function attempt(body: Uint8Array, options: HttpOptions): Promise<Answer> {
  return new Promise((resolve) => {
    const { signal } = options;
    let settled = false;
    // An abort also cuts a request in flight: a daemon told to stop must not wait out a hung collector.
    const onAbort = (): void => {
      req.destroy(new Error('aborted'));
    };
    const done = (answer: Answer): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(answer);
    };
    const req = startRequest(body, options, done);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

/** The POST, not yet sent: its answer, a timeout or a network error all end in done. */
function startRequest(
  body: Uint8Array,
  options: HttpOptions,
  done: (answer: Answer) => void,
): ClientRequest {
  const url = new URL(options.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = request(
    url,
    {
      method: 'POST',
      headers: requestHeaders(body, options),
      timeout: options.timeoutMs,
      ...(options.tls ?? {}),
      agent: options.agent ?? false,
    },
    (res) => readAnswer(res, options.contentType, done),
  );
  req.on('timeout', () => {
    req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
  });
  req.on('error', (err: NodeJS.ErrnoException) => {
    done(networkFailure(err.code === undefined ? err.message : `${err.code} ${err.message}`));
  });
  return req;
}

function requestHeaders(body: Uint8Array, options: HttpOptions): Record<string, string> {
  const headers: Record<string, string> = {
    ...options.headers,
    'Content-Type': options.contentType,
    'Content-Length': String(body.byteLength),
    'User-Agent': 'ccotel',
  };
  if (options.compression === 'gzip') headers['Content-Encoding'] = 'gzip';
  return headers;
}

/** Reads the response whole; sentContentType stands in for a response without its own. */
function readAnswer(
  res: IncomingMessage,
  sentContentType: string,
  done: (answer: Answer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('error', (err) => done(networkFailure(err.message)));
  res.on('end', () => {
    const status = res.statusCode ?? 0;
    const body = Buffer.concat(chunks);
    if (status >= 200 && status < 300)
      return done({
        partial: readPartialSuccess(body, String(res.headers['content-type'] ?? sentContentType)),
      });
    const retryAfter = res.headers['retry-after'];
    done({
      failure: httpFailure(status, body, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    });
  });
}

/** A network error or timeout: no answer at all, always worth another attempt. */
function networkFailure(message: string): Answer {
  return { failure: { retryable: true, status: 0, message, retryAfterMs: null } };
}

/** An answer other than 2xx: its status and the start of its body, on one line. */
export function httpFailure(
  status: number,
  body: Buffer,
  retryAfter: string | undefined,
): AttemptFailure {
  const text = body.toString('utf8').slice(0, 200).replace(/\s+/g, ' ').trim();
  return {
    retryable: isRetryableStatus(status),
    status,
    message: `HTTP ${status}${text === '' ? '' : `: ${text}`}`,
    retryAfterMs: parseRetryAfter(retryAfter),
  };
}

/**
 * One attempt per send. The body goes as given: with compression 'gzip' it
 * is already compressed (gzipping) and only labelled so here.
 */
export function httpTransport(options: HttpOptions): OtlpTransport {
  return {
    async send(body) {
      const answer = await attempt(body, options);
      if ('partial' in answer) return { status: 'success', attempts: 1, partial: answer.partial };
      const { failure } = answer;
      return { status: failure.retryable ? 'retryable' : 'failure', attempts: 1, failure };
    },
  };
}

/**
 * Compresses each body once, before the transport it wraps makes (and
 * retries) its attempts. On the main thread, not on the thread pool: zlib
 * sets up each stream's state in the thread that first runs it, so the pool's
 * threads each grew a malloc arena of freed states, and the main thread
 * waited for its turn on the pool (docs/benchmarks.md).
 */
export function gzipping(inner: OtlpTransport): OtlpTransport {
  return { send: (body) => inner.send(gzipSync(body)) };
}

/** The sender: HTTP attempts, retried by the policy, of a body compressed once if asked. */
export function otlpTransport(options: SenderOptions): OtlpTransport {
  const retrying = new RetryingTransport(httpTransport(options), options);
  return options.compression === 'gzip' ? gzipping(retrying) : retrying;
}

/** One request with the sender's whole policy. */
export const sendOtlp = (payload: Uint8Array, options: SenderOptions): Promise<ExportResponse> =>
  otlpTransport(options).send(payload);
