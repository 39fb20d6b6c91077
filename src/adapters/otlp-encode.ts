// SpanData → OTLP request bytes, through our direct writers (otlp-protobuf.ts,
// otlp-json.ts), which produce the same bytes as the SDK's Protobuf and JSON
// trace serializers, faster. The SDK path stays as the reference they must equal.
// We hand the SDK ReadableSpan objects directly: its tracer would re-time and
// re-id spans, and its batch processor drops spans on failure, which a backfill
// cannot afford.
import { createRequire } from 'node:module';
import type { SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SpanData } from '../core/span-data.js';
import { hr, SCOPE } from './otlp-scope.js';
import { encodeProtobuf } from './otlp-protobuf.js';
import { encodeJson } from './otlp-json.js';

// The direct writer's pieces, for worker threads and the equivalence test.
export {
  assembleRequest,
  encodeSpanFields,
  rangesOf,
  RequestBuffer,
  spanCountOf,
  spanIdOf,
  type EncodedSpans,
  type SpanRange,
} from './otlp-protobuf.js';
export { SCOPE } from './otlp-scope.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

// The SDK is loaded only when its path runs (the reference in tests and
// benches): export never needs @opentelemetry/otlp-transformer, whose loading
// was a fixed cost of every run.
const require = createRequire(import.meta.url);
const api = (): typeof import('@opentelemetry/api') => require('@opentelemetry/api');
const transformer = (): typeof import('@opentelemetry/otlp-transformer') =>
  require('@opentelemetry/otlp-transformer');

function context(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: api().TraceFlags.SAMPLED, isRemote: false };
}

export function toReadableSpan(span: SpanData, resource: Resource): ReadableSpan {
  const { SpanKind, SpanStatusCode } = api();
  const STATUS = {
    UNSET: SpanStatusCode.UNSET,
    OK: SpanStatusCode.OK,
    ERROR: SpanStatusCode.ERROR,
  } as const;
  const own = context(span.traceId, span.spanId);
  const startTime = hr(span.startMs);
  const endTime = hr(Math.max(span.startMs, span.endMs));
  return {
    name: span.name,
    kind: span.kind === 'CLIENT' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => own,
    ...(span.parentSpanId === null
      ? {}
      : { parentSpanContext: context(span.traceId, span.parentSpanId) }),
    startTime,
    endTime,
    duration: hr(Math.max(0, span.endMs - span.startMs)),
    status:
      span.status.message === undefined
        ? { code: STATUS[span.status.code] }
        : { code: STATUS[span.status.code], message: span.status.message },
    attributes: span.attributes,
    links: span.links.map((l) => ({
      context: context(l.traceId, l.spanId),
      attributes: l.attributes,
    })),
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** One ExportTraceServiceRequest through the SDK serializers: the reference the direct encoder must equal. */
export function encodeSpansWithSdk(
  spans: SpanData[],
  resource: Resource,
  protocol: OtlpProtocol,
): Uint8Array {
  const readable = spans.map((s) => toReadableSpan(s, resource));
  const { JsonTraceSerializer, ProtobufTraceSerializer } = transformer();
  const serializer = protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const bytes = serializer.serializeRequest(readable);
  if (bytes === undefined) throw new Error('OTLP serializer returned nothing');
  return bytes;
}

/** One ExportTraceServiceRequest holding `spans`. */
export function encodeSpans(
  spans: SpanData[],
  resource: Resource,
  protocol: OtlpProtocol,
): Uint8Array {
  return protocol === 'http/json' ? encodeJson(spans, resource) : encodeProtobuf(spans, resource);
}

export const contentTypeOf = (protocol: OtlpProtocol): string =>
  protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
