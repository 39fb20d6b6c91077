// Where a batch of spans goes: an OTLP/HTTP endpoint, an OTLP/JSON file
// (--out, one request per line), or nowhere (--dry-run: counting-sink.ts).
// A batch's events (Claude Code's schema) follow its spans: to the logs
// endpoint, or as a resourceLogs line after the spans' line.
// The OTLP sink splits a batch the collector refuses as too large (413) into
// halves, down to one span, and remembers the size that went through.
import type { Settings } from '../../core/settings.js';
import { contentTypeOf, RequestBuffer } from '../../adapters/otlp/encode.js';
import { jsonLineOfRanges } from '../../adapters/otlp/json.js';
import { keepAliveAgent, otlpTransport } from '../../adapters/otlp/http-sender.js';
import type { Resource } from '@opentelemetry/resources';
import {
  resourceOfSource,
  resourceWith,
  type ResourceSource,
} from '../../adapters/otlp/resource.js';
import {
  variantAttributes,
  type ResourceVariant,
} from '../../core/spans/native/native-resource.js';
import type { AttemptFailure } from '../../adapters/otlp/transport.js';
import { UserError } from '../../core/user-error.js';
import { spanCountOfBatch, type BatchOf, type SinkForm } from './span-batch.js';
import {
  HalvingSend,
  requestsOfRanges,
  requestsOfSpans,
  type BatchRequests,
  type Post,
  type SizeLimit,
} from './otlp-batch-send.js';
import type { PrivateFile } from '../../adapters/files/private-file.js';
import { readSmallFileSync } from '../../adapters/files/file-info.js';
import type { LogRecordData } from '../../core/events/log-record.js';
import { logsJson, logsProtobuf, logsUrlBeside } from '../../adapters/otlp/logs.js';

/** What became of spans[from, to) of a send. */
export type SinkPart =
  | { from: number; to: number; outcome: 'accepted' }
  /** Answered 2xx with partial_success: the response does not say which spans it dropped. */
  | { from: number; to: number; outcome: 'rejected'; rejectedSpans: number; errorMessage: string }
  /** One span the collector refuses as too large (413) even alone. */
  | { from: number; to: number; outcome: 'too-large'; spanId: string; bytes: number };

/** What became of a batch's events (sent once its spans were all answered). */
export interface EventsResult {
  /** Where they went (the logs endpoint, or the --out file). */
  description: string;
  /** Answered 2xx; false: the sink result's `failure` says why. */
  ok: boolean;
  /** How many the collector said it rejected (partial_success). */
  rejected: number;
  errorMessage: string;
}

export interface SinkResult {
  /** Every span got a verdict (`parts` cover them all), and the events one; false: `failure` stopped it. */
  ok: boolean;
  /** HTTP attempts made, retries and split halves included. */
  attempts: number;
  /** Request bytes of the accepted and rejected parts. */
  bytes: number;
  /** In order, contiguous from span 0. */
  parts: SinkPart[];
  failure: AttemptFailure | null;
  /** Absent when the batch had no events or its spans were not all delivered. */
  events?: EventsResult;
}

/** A sink of batches of one form (span-batch.ts), which it declares. */
export interface SinkOf<F extends SinkForm> {
  readonly description: string;
  /** What its batches carry: export builds each turn, and fills each batch, in this form. */
  readonly form: F;
  send(batch: BatchOf<F>): Promise<SinkResult>;
  /** Makes the output final (the --out file appears); a no-op for the network. */
  close?(): Promise<void>;
}

export type SpanSink = SinkOf<'spans'> | SinkOf<'protobuf'> | SinkOf<'json'> | SinkOf<'count'>;

/** An OTLP/HTTP endpoint: protobuf span fields, or built spans for OTLP/JSON. */
export type OtlpSink = SinkOf<'protobuf'> | SinkOf<'spans'>;

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

export function otlpSink(
  settings: Settings,
  resource: ResourceSource,
  retry: RetryPolicy,
): OtlpSink {
  const post = otlpPoster(settings, settings.endpoint, retry);
  // Learned from a 413: the largest request size (in spans) worth trying.
  const limit: SizeLimit = { spans: Infinity };
  const memory = new RequestMemory();
  const run = (requests: BatchRequests) => new HalvingSend(requests, post, limit).run();
  const events = eventSender(settings, retry);
  const description = settings.endpoint;
  if (settings.protocol === 'http/protobuf')
    return {
      description,
      form: 'protobuf',
      async send(batch) {
        const res = batchResource(resource, batch.variant);
        const spans = await memory.lend((into) => run(requestsOfRanges(batch.ranges, res, into)));
        return events(spans, batch.events, res);
      },
    };
  return {
    description,
    form: 'spans',
    async send(batch) {
      const res = batchResource(resource, batch.variant);
      const spans = await run(requestsOfSpans(batch.spans, res, settings.protocol));
      return events(spans, batch.events, res);
    },
  };
}

/** The resource of a batch: the run's, with its sessions' variant (Claude Code's schema) over it. */
function batchResource(source: ResourceSource, variant: ResourceVariant | undefined): Resource {
  const base = resourceOfSource(source);
  if (variant === undefined) return base;
  return resourceWith(base, variant.key, () => variantAttributes(base.attributes, variant));
}

/** Where events go: the logs endpoint set, else the one beside the traces URL. */
export function logsEndpointOf(settings: Settings): string {
  const url = settings.logsEndpoint ?? logsUrlBeside(settings.endpoint);
  if (url === null)
    throw new UserError(
      `--logs-endpoint: needed for events, since the traces endpoint ${settings.endpoint} does not end in /v1/traces`,
      'usage',
    );
  return url;
}

/**
 * Sends a batch's events once its spans were all delivered: one request to
 * the logs endpoint, through the same retrying transport. Its verdict joins
 * the spans' (EventsResult); a failure stops the run as a span failure does.
 */
function eventSender(
  settings: Settings,
  retry: RetryPolicy,
): (spans: SinkResult, events: LogRecordData[] | undefined, res: Resource) => Promise<SinkResult> {
  let post: Post | null = null;
  let url = '';
  return async (spans, events, res) => {
    if (!spans.ok || events === undefined || events.length === 0) return spans;
    if (post === null) {
      url = logsEndpointOf(settings);
      post = otlpPoster(settings, url, retry);
    }
    const body =
      settings.protocol === 'http/protobuf'
        ? logsProtobuf(events, res)
        : Buffer.from(logsJson(events, res), 'utf8');
    const answer = await post(body);
    const result: SinkResult = { ...spans, attempts: spans.attempts + answer.attempts };
    if (answer.status !== 'success') {
      result.ok = false;
      result.failure = answer.failure;
      result.events = { description: url, ok: false, rejected: 0, errorMessage: '' };
      return result;
    }
    result.bytes += body.byteLength;
    const rejected = Math.min(events.length, answer.partial?.rejectedSpans ?? 0);
    result.events = {
      description: url,
      ok: true,
      rejected,
      errorMessage: answer.partial?.errorMessage ?? '',
    };
    return result;
  };
}

/** Posts one request body to `url` with the settings' TLS, headers and retries. */
function otlpPoster(settings: Settings, url: string, retry: RetryPolicy): Post {
  const tls = {
    ca: readPem(settings.tlsCa, 'CA file'),
    cert: readPem(settings.tlsCert, 'client certificate'),
    key: readPem(settings.tlsKey, 'client key'),
  };
  const transport = otlpTransport({
    url,
    headers: settings.headers,
    contentType: contentTypeOf(settings.protocol),
    compression: settings.compression,
    timeoutMs: settings.timeoutMs,
    maxRetries: retry.maxRetries,
    initialBackoffMs: 1000,
    maxBackoffMs: retry.maxBackoffMs,
    maxRetryAfterMs: 60_000,
    tls,
    agent: keepAliveAgent(url),
    ...(retry.signal === undefined ? {} : { signal: retry.signal }),
    ...(retry.onRetry === undefined ? {} : { onRetry: retry.onRetry }),
  });
  return (body) => transport.send(body);
}

/**
 * Whole-batch requests are assembled in one buffer, request after request:
 * a request is done with once its answer came (or its connection was
 * destroyed), before the next is assembled. A send that starts while
 * another is still out gets fresh memory.
 */
class RequestMemory {
  private readonly buffer = new RequestBuffer();
  private lent = false;

  /** Runs `send` with the buffer, or with none while another send holds it. */
  async lend(send: (into: RequestBuffer | undefined) => Promise<SinkResult>): Promise<SinkResult> {
    if (this.lent) return send(undefined);
    this.lent = true;
    try {
      return await send(this.buffer);
    } finally {
      this.lent = false;
    }
  }
}

/** OTLP/JSON requests, one per line, into a private file that appears whole at close(). */
export function fileSink(out: PrivateFile, resource: ResourceSource): SinkOf<'json'> {
  return {
    description: out.path,
    form: 'json',
    async send(batch) {
      // Written from the encoder's own buffer, neither decoded into a string nor
      // copied; the write is awaited before the next request is encoded into it
      // (export sends one batch at a time).
      const res = batchResource(resource, batch.variant);
      const line = jsonLineOfRanges(batch.ranges, res);
      await out.append(line);
      const result = acceptedAll(spanCountOfBatch(batch), line.byteLength - 1);
      const events = batch.events ?? [];
      if (events.length === 0) return result;
      // Events follow their spans as a resourceLogs request of their own.
      const logs = Buffer.from(`${logsJson(events, res)}\n`, 'utf8');
      await out.append(logs);
      result.bytes += logs.byteLength - 1;
      result.events = { description: out.path, ok: true, rejected: 0, errorMessage: '' };
      return result;
    },
    close: () => out.commit(),
  };
}
