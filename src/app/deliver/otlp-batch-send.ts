// One batch to an OTLP/HTTP endpoint: its requests, encoded from built spans
// or assembled from their protobuf fields, and the halving of a request the
// collector refuses as too large (413). The sink around it (span-sink.ts)
// posts the requests and keeps what outlives a batch.
import type { Resource } from '@opentelemetry/resources';
import type { SpanData } from '../../core/spans/data.js';
import {
  assembleRequest,
  encodeSpans,
  rangesOf,
  spanCountOf,
  spanIdOf,
  type OtlpProtocol,
  type RequestBuffer,
  type SpanRange,
} from '../../adapters/otlp/encode.js';
import type { ExportResponse } from '../../adapters/otlp/transport.js';
import type { SinkResult } from './span-sink.js';

/** Sends one request body, retries included. */
export type Post = (body: Uint8Array) => Promise<ExportResponse>;

/** The requests of one batch: spans [from, to) of it, counted across its ranges. */
export interface BatchRequests {
  readonly count: number;
  encode(from: number, to: number): Uint8Array;
  /** The id of span `index`: names a span too large to send even alone. */
  spanIdAt(index: number): string;
}

/** Requests encoded from built spans (the OTLP/JSON endpoint's form). */
export function requestsOfSpans(
  spans: SpanData[],
  resource: Resource,
  protocol: OtlpProtocol,
): BatchRequests {
  return {
    count: spans.length,
    encode: (from, to) =>
      encodeSpans(
        from === 0 && to === spans.length ? spans : spans.slice(from, to),
        resource,
        protocol,
      ),
    spanIdAt: (index) => spans[index]?.spanId ?? '?',
  };
}

/**
 * Protobuf requests, halves after a 413 included, assembled from the span
 * fields: no span is encoded a second time.
 */
export function requestsOfRanges(
  fields: SpanRange[],
  resource: Resource,
  into: RequestBuffer | undefined,
): BatchRequests {
  const count = spanCountOf(fields);
  return {
    count,
    encode: (from, to) =>
      assembleRequest(
        from === 0 && to === count ? fields : rangesOf(fields, from, to),
        resource,
        into,
      ),
    spanIdAt: (index) => spanIdOf(fields, index),
  };
}

/** The largest request (in spans) worth trying: the sink's, learned from 413s, for all its batches. */
export interface SizeLimit {
  spans: number;
}

/**
 * One batch, sent in requests of at most `limit` spans. A request refused as
 * too large (413) is split into halves, down to one span, and the size of the
 * first half becomes the limit for this batch and the later ones.
 */
export class HalvingSend {
  private readonly result: SinkResult = {
    ok: true,
    attempts: 0,
    bytes: 0,
    parts: [],
    failure: null,
  };

  constructor(
    private readonly requests: BatchRequests,
    private readonly post: Post,
    private readonly limit: SizeLimit,
  ) {}

  async run(): Promise<SinkResult> {
    const { count } = this.requests;
    for (let from = 0; from < count;) {
      const to = Math.min(count, from + this.limit.spans);
      if (!(await this.range(from, to))) break;
      from = to;
    }
    return this.result;
  }

  /** Sends spans[from, to); false once a failure other than 413 stopped it. */
  private async range(from: number, to: number): Promise<boolean> {
    const body = this.requests.encode(from, to);
    const answer = await this.post(body);
    const result = this.result;
    result.attempts += answer.attempts;
    if (answer.status === 'success') {
      result.bytes += body.byteLength;
      const p = answer.partial;
      result.parts.push(
        p === null || p.rejectedSpans === 0
          ? { from, to, outcome: 'accepted' }
          : { from, to, outcome: 'rejected', ...p },
      );
      return true;
    }
    if (answer.failure.status === 413) return this.split(from, to, body.byteLength);
    result.ok = false;
    result.failure = answer.failure;
    return false;
  }

  /** After a 413 of `bytes`: the two halves in turn, or a single span's verdict. */
  private async split(from: number, to: number, bytes: number): Promise<boolean> {
    if (to - from === 1) {
      const spanId = this.requests.spanIdAt(from);
      this.result.parts.push({ from, to, outcome: 'too-large', spanId, bytes });
      return true;
    }
    const mid = from + Math.ceil((to - from) / 2);
    this.limit.spans = Math.min(this.limit.spans, mid - from);
    return (await this.range(from, mid)) && this.range(mid, to);
  }
}
