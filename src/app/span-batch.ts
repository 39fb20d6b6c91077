// What a sink is given to send: one batch of spans in exactly one of three
// forms. Built spans are what every sink takes. The two others exist for
// export's speed and memory (docs/benchmarks.md, steps 30-37) and go only to a
// sink that says it takes them (SpanSink.takesEncoded, takesJson). One form
// per batch, so that no sink can mistake a batch sent as ranges for an empty
// list of spans. Its own module, of types and a count, so that the dry run's
// counting-sink.ts need not load span-sink.ts.
import type { SpanData } from '../core/span-data.js';
import type { SpanRange } from '../adapters/otlp-encode.js';

export type SpanBatch =
  /** Built spans: the watch daemon's batches, and export's when the sink takes nothing else. */
  | { spans: SpanData[]; encoded?: never; json?: never }
  /**
   * Turns' spans already encoded as protobuf span fields (export has them
   * from hashing each turn): the protobuf request is assembled from them
   * rather than encoded a second time, and export holds no span of a batch
   * while it fills and travels (those spans were most of what survived into
   * V8's old space, and of export's peak RSS: step 30).
   */
  | { encoded: SpanRange[]; spans?: never; json?: never }
  /**
   * Turns' spans already encoded as OTLP/JSON span objects (encodeJsonSpans),
   * for --out when export has nothing to compare: each turn is encoded as it
   * is built, so its spans die young instead of waiting in a batch.
   */
  | { json: SpanRange[]; spans?: never; encoded?: never };

/** The spans in the batch; a SinkPart's `from` and `to` count across its ranges. */
export function spanCountOfBatch(batch: SpanBatch): number {
  if (batch.spans !== undefined) return batch.spans.length;
  const ranges = batch.encoded !== undefined ? batch.encoded : batch.json;
  let count = 0;
  for (const r of ranges) count += Math.max(0, r.to - r.from);
  return count;
}

/** A sink given a form it does not say it takes: a caller's bug, never the input's. */
export function formNotTaken(sink: string, form: 'encoded' | 'json'): never {
  throw new Error(`${sink} does not take a batch as ${form} ranges`);
}
