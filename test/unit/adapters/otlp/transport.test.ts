// The sender composed as the OpenTelemetry JS exporters compose it: one HTTP
// attempt (httpTransport), retried by RetryingTransport, the body compressed
// once (gzipping). Against the real test receiver: what it answers decides
// the status, and each attempt is one request it saw.
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  gzipping,
  httpTransport,
  otlpTransport,
  type SenderOptions,
} from '../../../../src/adapters/otlp/http-sender.js';
import { RetryingTransport } from '../../../../src/adapters/otlp/retry.js';
import type {
  AttemptFailure,
  ExportResponse,
  OtlpTransport,
} from '../../../../src/adapters/otlp/transport.js';
import { encodeSpans } from '../../../../src/adapters/otlp/encode.js';
import { buildResource } from '../../../../src/adapters/otlp/resource.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../../support/otlp-receiver.js';
import { testSpan as span } from '../../../support/test-span.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.stop();
});

const resource = buildResource({ serviceName: 'ccotel-test', attributes: {} });
const body = (): Uint8Array => encodeSpans([span('1'), span('2')], resource, 'http/protobuf');

const options = (overrides: Partial<SenderOptions> = {}): SenderOptions => ({
  url: `${receiver.url}/v1/traces`,
  headers: {},
  contentType: 'application/x-protobuf',
  compression: 'none',
  timeoutMs: 5000,
  maxRetries: 5,
  initialBackoffMs: 10,
  maxBackoffMs: 40,
  maxRetryAfterMs: 60_000,
  ...overrides,
});

describe('httpTransport: one attempt', () => {
  it('tells success, retryable (503) and failure (401) apart, one request each', async () => {
    receiver.script([{ status: 503 }, { status: 401 }]);
    const http = httpTransport(options());
    expect(await http.send(body())).toMatchObject({ status: 'retryable', attempts: 1 });
    expect(await http.send(body())).toMatchObject({ status: 'failure', attempts: 1 });
    expect(await http.send(body())).toEqual({ status: 'success', attempts: 1, partial: null });
    expect(receiver.requests().map((r) => r.status)).toEqual([503, 401, 200]);
  });
});

describe('otlpTransport: retried HTTP attempts', () => {
  it('retries 503s until the collector answers, telling each retry', async () => {
    receiver.script([{ status: 503 }, { status: 503, retryAfter: '0' }]);
    const retries: [number, number][] = [];
    const transport = otlpTransport(
      options({ onRetry: (f, delay, attempt) => void retries.push([f.status, attempt]) }),
    );
    expect(await transport.send(body())).toEqual({ status: 'success', attempts: 3, partial: null });
    expect(retries).toEqual([
      [503, 1],
      [503, 2],
    ]);
    expect(receiver.spans()).toHaveLength(2);
  });

  it('does not retry a failure that is not retryable', async () => {
    receiver.script([{ status: 400, body: 'bad' }]);
    const result = await otlpTransport(options()).send(body());
    expect(result).toMatchObject({ status: 'failure', attempts: 1 });
    expect(receiver.requests()).toHaveLength(1);
  });

  it('gives up after maxRetries, answering the last failure as retryable', async () => {
    receiver.setMode({ status: 502 });
    const result = await otlpTransport(options({ maxRetries: 2 })).send(body());
    expect(result).toMatchObject({ status: 'retryable', attempts: 3, failure: { status: 502 } });
    expect(receiver.requests()).toHaveLength(3);
  });

  it('compresses once: every attempt carries the same gzip body', async () => {
    receiver.script([{ status: 503 }]);
    const seen: Uint8Array[] = [];
    const recording: OtlpTransport = {
      send: (b) => {
        seen.push(b);
        return httpTransport(options({ compression: 'gzip' })).send(b);
      },
    };
    const transport = gzipping(new RetryingTransport(recording, options()));
    expect((await transport.send(body())).status).toBe('success');
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(Buffer.from(gunzipSync(seen[0] as Uint8Array)).equals(Buffer.from(body()))).toBe(true);
    expect(receiver.requests().every((r) => r.gzip)).toBe(true);
    expect(receiver.spans()).toHaveLength(2);
  });
});

describe('RetryingTransport: the policy', () => {
  const down: AttemptFailure = {
    retryable: true,
    status: 0,
    message: 'ECONNREFUSED',
    retryAfterMs: null,
  };
  /** An inner transport that answers from a list, then succeeds. */
  const scripted = (answers: ExportResponse[]): OtlpTransport => ({
    send: () =>
      Promise.resolve(answers.shift() ?? { status: 'success', attempts: 1, partial: null }),
  });
  const retryable = (failure = down): ExportResponse => ({
    status: 'retryable',
    attempts: 1,
    failure,
  });

  it('waits ×1.5 per retry, capped at maxBackoffMs (no jitter at random 0.5)', async () => {
    const delays: number[] = [];
    const transport = new RetryingTransport(
      scripted([retryable(), retryable(), retryable(), retryable(), retryable()]),
      { ...options(), onRetry: (_f, delay) => void delays.push(delay) },
      () => 0.5,
    );
    expect(await transport.send(body())).toMatchObject({ status: 'success', attempts: 6 });
    expect(delays).toEqual([10, 15, 22.5, 33.75, 40]);
  });

  it('jitters each wait by ±20 %, and takes Retry-After as asked', async () => {
    const delays: number[] = [];
    const transport = new RetryingTransport(
      scripted([retryable(), retryable({ ...down, retryAfterMs: 25 })]),
      { ...options(), onRetry: (_f, delay) => void delays.push(delay) },
      () => 0,
    );
    await transport.send(body());
    expect(delays).toEqual([8, 25]);
  });

  it('an abort cuts the wait short and ends the retries, with the last failure', async () => {
    const controller = new AbortController();
    const inner: OtlpTransport = { send: () => Promise.resolve(retryable()) };
    const transport = new RetryingTransport(inner, {
      ...options({ maxRetries: Infinity, initialBackoffMs: 60_000 }),
      signal: controller.signal,
    });
    const started = Date.now();
    const sent = transport.send(body());
    setTimeout(() => controller.abort(), 20);
    expect(await sent).toMatchObject({ status: 'retryable', attempts: 2 });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
