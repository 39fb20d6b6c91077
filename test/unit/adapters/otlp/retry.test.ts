// The sender's retry decisions taken alone: which statuses are retried (the
// OTLP/HTTP spec's 429, 502, 503, 504), the wait before the next attempt
// (Retry-After capped, else the backoff with ±20 % jitter), and how an answer
// other than 2xx is told (status and the start of its body, on one line).
import { describe, expect, it } from 'vitest';
import { httpFailure } from '../../../../src/adapters/otlp/http-sender.js';
import { isRetryableStatus, retryDelay } from '../../../../src/adapters/otlp/retry.js';

describe('isRetryableStatus', () => {
  it('retries 429, 502, 503 and 504, and no other status', () => {
    const statuses = [400, 401, 403, 404, 408, 413, 429, 500, 501, 502, 503, 504, 505];
    expect(statuses.filter(isRetryableStatus)).toEqual([429, 502, 503, 504]);
  });
});

describe('retryDelay', () => {
  it('jitters the backoff by ±20 % when the server names no wait', () => {
    expect(retryDelay(null, 1000, 60_000, 0)).toBe(800);
    expect(retryDelay(null, 1000, 60_000, 0.5)).toBe(1000);
    expect(retryDelay(null, 1000, 60_000, 0.999)).toBeCloseTo(1199.6, 6);
  });

  it('waits what Retry-After says, up to the ceiling, whatever the backoff', () => {
    expect(retryDelay(2000, 1000, 60_000, 0.3)).toBe(2000);
    expect(retryDelay(0, 1000, 60_000, 0.3)).toBe(0);
    expect(retryDelay(120_000, 1000, 60_000, 0.3)).toBe(60_000);
  });
});

describe('httpFailure', () => {
  it('names the status and the first 200 characters of the body on one line', () => {
    const head = '  bad\n\trequest:   ';
    const body = Buffer.from(`${head}${'x'.repeat(300)}`);
    const failure = httpFailure(400, body, undefined);
    expect(failure).toMatchObject({ retryable: false, status: 400, retryAfterMs: null });
    expect(failure.message).toBe(`HTTP 400: bad request: ${'x'.repeat(200 - head.length)}`);
  });

  it('is the bare status for an empty body, and reads Retry-After in seconds', () => {
    expect(httpFailure(503, Buffer.alloc(0), '3')).toEqual({
      retryable: true,
      status: 503,
      message: 'HTTP 503',
      retryAfterMs: 3000,
    });
  });
});
