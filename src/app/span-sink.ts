// Where a batch of spans goes: an OTLP/HTTP endpoint, an OTLP/JSON file
// (--out, one request per line), or nowhere (--dry-run: counting-sink.ts).
// The OTLP sink splits a batch the collector refuses as too large (413) into
// halves, down to one span, and remembers the size that went through.
import type { Resource } from '@opentelemetry/resources';
import type { Settings } from '../core/settings.js';
import {
  assembleRequest,
  contentTypeOf,
  encodeSpans,
  rangesOf,
  RequestBuffer,
  spanIdOf,
} from '../adapters/otlp-encode.js';
import { jsonLineOfRanges, jsonLineView } from '../adapters/otlp-json.js';
import { keepAliveAgent, sendOtlp, type AttemptFailure } from '../adapters/otlp-http-sender.js';
import { UserError } from '../core/user-error.js';
import { formNotTaken, spanCountOfBatch, type SpanBatch } from './span-batch.js';
import type { PrivateFile } from '../adapters/private-file.js';
import { readSmallFileSync } from '../adapters/file-info.js';

/** What became of spans[from, to) of a send. */
export type SinkPart =
  | { from: number; to: number; outcome: 'accepted' }
  /** Answered 2xx with partial_success: the response does not say which spans it dropped. */
  | { from: number; to: number; outcome: 'rejected'; rejectedSpans: number; errorMessage: string }
  /** One span the collector refuses as too large (413) even alone. */
  | { from: number; to: number; outcome: 'too-large'; spanId: string; bytes: number };

export interface SinkResult {
  /** Every span got a verdict (`parts` cover them all); false: `failure` stopped it. */
  ok: boolean;
  /** HTTP attempts made, retries and split halves included. */
  attempts: number;
  /** Request bytes of the accepted and rejected parts. */
  bytes: number;
  /** In order, contiguous from span 0. */
  parts: SinkPart[];
  failure: AttemptFailure | null;
}

export interface SpanSink {
  readonly description: string;
  /** Takes only the number of spans (a dry run): export may count turns' spans instead of building them. */
  readonly countsOnly?: boolean;
  /** Takes a batch as `encoded` protobuf span fields (SpanBatch): export then sends it so. */
  readonly takesEncoded?: boolean;
  /** Takes a batch as `json` OTLP/JSON span objects (SpanBatch): the file sink. */
  readonly takesJson?: boolean;
  /** Every sink takes built spans; `encoded` or `json` only when it says so above. */
  send(batch: SpanBatch): Promise<SinkResult>;
  /** Makes the output final (the --out file appears); a no-op for the network. */
  close?(): Promise<void>;
}

const acceptedAll = (count: number, bytes: number): SinkResult => ({
  ok: true,
  attempts: 1,
  bytes,
  parts: count === 0 ? [] : [{ from: 0, to: count, outcome: 'accepted' }],
  failure: null,
});

export interface RetryPolicy {
  maxRetries: number;
  maxBackoffMs: number;
  signal?: AbortSignal;
  onRetry?: (failure: AttemptFailure, delayMs: number, attempt: number) => void;
}

function readPem(path: string | null, what: string): string | undefined {
  if (path === null) return undefined;
  const pem = readSmallFileSync(path);
  if (pem === null) throw new UserError(`cannot read ${what} ${path}`, 'usage');
  return pem;
}

export function otlpSink(settings: Settings, resource: Resource, retry: RetryPolicy): SpanSink {
  const tls = {
    ca: readPem(settings.tlsCa, 'CA file'),
    cert: readPem(settings.tlsCert, 'client certificate'),
    key: readPem(settings.tlsKey, 'client key'),
  };
  const agent = keepAliveAgent(settings.endpoint);
  const post = (body: Uint8Array) =>
    sendOtlp(body, {
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
      agent,
      ...(retry.signal === undefined ? {} : { signal: retry.signal }),
      ...(retry.onRetry === undefined ? {} : { onRetry: retry.onRetry }),
    });
  // Learned from a 413: the largest request size (in spans) worth trying.
  let cap = Infinity;
  // Whole-batch requests are assembled in one buffer, request after request:
  // a request is done with once its answer came (or its connection was
  // destroyed), before the next is assembled. A send that starts while
  // another is still out gets fresh memory.
  const requests = new RequestBuffer();
  let sending = false;
  return {
    description: settings.endpoint,
    takesEncoded: settings.protocol === 'http/protobuf',
    async send(batch) {
      const reuse = !sending;
      sending = true;
      try {
        return await sendBatch(batch, reuse ? requests : undefined);
      } finally {
        if (reuse) sending = false;
      }
    },
  };

  async function sendBatch(batch: SpanBatch, into: RequestBuffer | undefined): Promise<SinkResult> {
    if (batch.json !== undefined) formNotTaken(settings.endpoint, 'json');
    if (batch.encoded !== undefined && settings.protocol !== 'http/protobuf')
      formNotTaken(settings.endpoint, 'encoded');
    const result: SinkResult = { ok: true, attempts: 0, bytes: 0, parts: [], failure: null };
    // Protobuf requests, halves after a 413 included, are assembled from the
    // span fields when given.
    const fields = batch.encoded;
    const spans = batch.spans ?? [];
    const count = spanCountOfBatch(batch);
    const encode = (from: number, to: number): Uint8Array =>
      fields === undefined
        ? encodeSpans(spans.slice(from, to), resource, settings.protocol)
        : assembleRequest(
            from === 0 && to === count ? fields : rangesOf(fields, from, to),
            resource,
            into,
          );
    /** Sends spans[from, to); false once a failure other than 413 stopped it. */
    const sendRange = async (from: number, to: number): Promise<boolean> => {
      const body = encode(from, to);
      const answer = await post(body);
      result.attempts += answer.attempts;
      if (answer.ok) {
        result.bytes += body.byteLength;
        const p = answer.partial;
        result.parts.push(
          p === null || p.rejectedSpans === 0
            ? { from, to, outcome: 'accepted' }
            : { from, to, outcome: 'rejected', ...p },
        );
        return true;
      }
      if (answer.failure.status === 413) {
        if (to - from === 1) {
          const spanId =
            fields === undefined ? (spans[from]?.spanId ?? '?') : spanIdOf(fields, from);
          result.parts.push({ from, to, outcome: 'too-large', spanId, bytes: body.byteLength });
          return true;
        }
        const mid = from + Math.ceil((to - from) / 2);
        cap = Math.min(cap, mid - from);
        return (await sendRange(from, mid)) && sendRange(mid, to);
      }
      result.ok = false;
      result.failure = answer.failure;
      return false;
    };
    for (let from = 0; from < count;) {
      const to = Math.min(count, from + cap);
      if (!(await sendRange(from, to))) break;
      from = to;
    }
    return result;
  }
}

/** OTLP/JSON requests, one per line, into a private file that appears whole at close(). */
export function fileSink(out: PrivateFile, resource: Resource): SpanSink {
  return {
    description: out.path,
    takesJson: true,
    async send(batch) {
      if (batch.encoded !== undefined) formNotTaken(out.path, 'encoded');
      // Written from the encoder's own buffer, neither decoded into a string nor
      // copied; the write is awaited before the next request is encoded into it
      // (export sends one batch at a time).
      const line =
        batch.json === undefined
          ? jsonLineView(batch.spans, resource)
          : jsonLineOfRanges(batch.json, resource);
      await out.append(line);
      return acceptedAll(spanCountOfBatch(batch), line.byteLength - 1);
    },
    close: () => out.commit(),
  };
}
