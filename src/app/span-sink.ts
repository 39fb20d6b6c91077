// Where a batch of spans goes: an OTLP/HTTP endpoint, an OTLP/JSON file
// (--out, one request per line), or nowhere (--dry-run, counting only).
import { appendFile } from 'node:fs/promises';
import type { Resource } from '@opentelemetry/resources';
import type { SpanData } from '../core/span-data.js';
import type { Settings } from '../core/settings.js';
import {
  assembleRequest,
  contentTypeOf,
  encodeSpans,
  type SpanRange,
} from '../adapters/otlp-encode.js';
import { sendOtlp, type AttemptFailure, type SendResult } from '../adapters/otlp-http-sender.js';
import { readFileSync } from 'node:fs';
import { CliError } from '../adapters/cli-error.js';

export interface SpanSink {
  readonly description: string;
  /**
   * `encoded`, when given, holds the same spans already encoded as protobuf
   * span fields (export has them from hashing each turn): the protobuf
   * request is then assembled from them rather than encoded a second time.
   */
  send(spans: SpanData[], encoded?: SpanRange[]): Promise<SendResult & { bytes: number }>;
}

export interface RetryPolicy {
  maxRetries: number;
  maxBackoffMs: number;
  signal?: AbortSignal;
  onRetry?: (failure: AttemptFailure, delayMs: number, attempt: number) => void;
}

function readPem(path: string | null, what: string): string | undefined {
  if (path === null) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new CliError(`cannot read ${what} ${path}`, 2);
  }
}

export function otlpSink(settings: Settings, resource: Resource, retry: RetryPolicy): SpanSink {
  const tls = {
    ca: readPem(settings.tlsCa, 'CA file'),
    cert: readPem(settings.tlsCert, 'client certificate'),
    key: readPem(settings.tlsKey, 'client key'),
  };
  return {
    description: settings.endpoint,
    async send(spans, encoded) {
      const body =
        encoded !== undefined && settings.protocol === 'http/protobuf'
          ? assembleRequest(encoded, resource)
          : encodeSpans(spans, resource, settings.protocol);
      const result = await sendOtlp(body, {
        url: settings.endpoint,
        headers: settings.headers,
        contentType: contentTypeOf(settings.protocol),
        compression: settings.compression,
        timeoutMs: settings.timeoutMs,
        maxRetries: retry.maxRetries,
        initialBackoffMs: 1000,
        maxBackoffMs: retry.maxBackoffMs,
        maxRetryAfterMs: 60_000,
        tls,
        ...(retry.signal === undefined ? {} : { signal: retry.signal }),
        ...(retry.onRetry === undefined ? {} : { onRetry: retry.onRetry }),
      });
      return { ...result, bytes: body.byteLength };
    },
  };
}

export function fileSink(path: string, resource: Resource): SpanSink {
  return {
    description: path,
    async send(spans) {
      const body = encodeSpans(spans, resource, 'http/json');
      await appendFile(path, `${Buffer.from(body).toString('utf8')}\n`, { mode: 0o600 });
      return { ok: true, attempts: 1, bytes: body.byteLength };
    },
  };
}

export function countingSink(): SpanSink {
  return {
    description: 'dry run',
    send: (spans) => Promise.resolve({ ok: true, attempts: 0, bytes: spans.length * 0 }),
  };
}
