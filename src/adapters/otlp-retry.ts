// The sender's retry decisions, pure: which answers are worth another attempt
// (what the OTLP/HTTP spec calls retryable: 429, 502, 503, 504; network
// errors and timeouts are decided where they happen), how long a server's
// Retry-After asks us to wait, and how long the next wait is.

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
