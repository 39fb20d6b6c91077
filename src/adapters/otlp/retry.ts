// The sender's retry policy: which answers are worth another attempt (what
// the OTLP/HTTP spec calls retryable: 429, 502, 503, 504; network errors and
// timeouts are decided where they happen), how long a server's Retry-After
// asks us to wait, how long the next wait is, and the transport that retries
// another with them (as the OpenTelemetry JS exporters' RetryingTransport
// does, but without a deadline: a daemon retries until it is told to stop).
import type { AttemptFailure, ExportResponse, OtlpTransport } from './transport.js';

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Whether an HTTP status other than 2xx may succeed on a later attempt. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The wait before the next attempt: the server's Retry-After, capped at
 * maxRetryAfterMs, or else the backoff with ±20 % jitter (`random` in [0, 1)),
 * which keeps many machines from retrying in lockstep against one Tempo.
 */
export function retryDelay(
  retryAfterMs: number | null,
  backoffMs: number,
  maxRetryAfterMs: number,
  random: number,
): number {
  const jittered = backoffMs * (0.8 + random * 0.4);
  return retryAfterMs === null ? jittered : Math.min(retryAfterMs, maxRetryAfterMs);
}

export interface RetryOptions {
  /** Attempts after the first; Infinity retries until `signal` aborts. */
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Ceiling for a server's Retry-After. */
  maxRetryAfterMs: number;
  /** Stops the retries (and, in the transport, cuts a request in flight). */
  signal?: AbortSignal;
  /** Told of each failed attempt that will be retried. */
  onRetry?: (failure: AttemptFailure, delayMs: number, attempt: number) => void;
}

/** How much the backoff grows after each retried attempt, up to maxBackoffMs. */
const BACKOFF_GROWTH = 1.5;

/** Sends through `inner`, retrying what it answers as retryable, with backoff. */
export class RetryingTransport implements OtlpTransport {
  constructor(
    private readonly inner: OtlpTransport,
    private readonly options: RetryOptions,
    private readonly random: () => number = Math.random,
  ) {}

  async send(body: Uint8Array): Promise<ExportResponse> {
    const { options } = this;
    let backoff = options.initialBackoffMs;
    for (let attempts = 1; ; attempts += 1) {
      const response = await this.inner.send(body);
      if (response.status !== 'retryable') return { ...response, attempts };
      const retriesLeft = attempts - 1 < options.maxRetries;
      if (!retriesLeft || options.signal?.aborted === true) return { ...response, attempts };
      const { failure } = response;
      const delay = retryDelay(
        failure.retryAfterMs,
        backoff,
        options.maxRetryAfterMs,
        this.random(),
      );
      options.onRetry?.(failure, delay, attempts);
      await sleep(delay, options.signal);
      backoff = Math.min(backoff * BACKOFF_GROWTH, options.maxBackoffMs);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    // The listener goes when the timer fires: a daemon retrying for hours must not pile them up.
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
