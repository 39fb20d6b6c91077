// The reference the direct OTLP writers (src/adapters/otlp/protobuf.ts,
// otlp-json.ts) must equal byte for byte: the same SpanData through the SDK's
// Protobuf and JSON trace serializers. ReadableSpan objects are built by hand:
// the SDK's tracer would re-time and re-id the spans.
import { SpanKind, SpanStatusCode, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SpanData } from '../../src/core/spans/data.js';
import type { OtlpProtocol } from '../../src/adapters/otlp/encode.js';
import { hr, SCOPE } from '../../src/adapters/otlp/scope.js';

function context(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

export function toReadableSpan(span: SpanData, resource: Resource): ReadableSpan {
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
  const serializer = protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const bytes = serializer.serializeRequest(readable);
  if (bytes === undefined) throw new Error('OTLP serializer returned nothing');
  return bytes;
}
