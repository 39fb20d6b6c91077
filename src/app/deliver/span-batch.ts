// What a batch carries, decided in one place: the sink declares the form it
// takes (SpanSink.form) and export fills its batches, and builds each turn,
// in that form. Built spans are what any OTLP sink can take; the other forms
// exist for export's speed and memory (docs/benchmarks.md): protobuf span
// fields reused from hashing each turn, OTLP/JSON span objects for --out, a
// count for the dry run. Its own module, of types and two small helpers, so that the
// dry run's counting-sink.ts need not load span-sink.ts.
import type { SpanData } from '../../core/spans/data.js';
import type { LogRecordData } from '../../core/events/log-record.js';
import type { ResourceVariant } from '../../core/spans/native/native-resource.js';
import type { SpanRange } from '../../adapters/otlp/encode.js';

/** The form a sink takes its batches in. */
export type SinkForm = 'spans' | 'protobuf' | 'json' | 'count';

/**
 * A batch: its spans in the sink's form, and the events (OTLP log records,
 * Claude Code's schema only) of the turns whose last span is in it; they
 * travel after the spans, to the logs endpoint or as their own line. Absent: none.
 */
export interface BatchEvents {
  events?: LogRecordData[];
  /** Claude Code's schema: the sessions' resource (one variant per batch). */
  variant?: ResourceVariant;
}

export type SpanBatch =
  /** Built spans: the OTLP/JSON endpoint's batches. */
  | ({ form: 'spans'; spans: SpanData[] } & BatchEvents)
  /**
   * Turns' spans already encoded as protobuf span fields (export has them
   * from hashing each turn): the request is assembled from them rather than
   * encoded a second time, and no span of a batch is held while it fills
   * and travels.
   */
  | ({ form: 'protobuf'; ranges: SpanRange[] } & BatchEvents)
  /**
   * Turns' spans already encoded as OTLP/JSON span objects (encodeJsonSpans),
   * for --out: each turn is encoded as it is built, so its spans die young
   * instead of waiting in a batch.
   */
  | ({ form: 'json'; ranges: SpanRange[] } & BatchEvents)
  /** Only how many spans there are: the dry run. */
  | ({ form: 'count'; count: number } & BatchEvents);

/** The batch with its events and variant put in (left out when there are none). */
export function withEvents<B extends BatchEvents>(
  batch: B,
  events: LogRecordData[],
  variant: ResourceVariant | undefined,
): B {
  if (events.length > 0) batch.events = events;
  if (variant !== undefined) batch.variant = variant;
  return batch;
}

/** The batch a sink of form F takes. */
export type BatchOf<F extends SinkForm> = Extract<SpanBatch, { form: F }>;

/** The spans in the batch; a SinkPart's `from` and `to` count across its ranges. */
export function spanCountOfBatch(batch: SpanBatch): number {
  switch (batch.form) {
    case 'spans':
      return batch.spans.length;
    case 'count':
      return batch.count;
    default:
      return countOfRanges(batch.ranges);
  }
}

function countOfRanges(ranges: SpanRange[]): number {
  let count = 0;
  for (const r of ranges) count += Math.max(0, r.to - r.from);
  return count;
}
