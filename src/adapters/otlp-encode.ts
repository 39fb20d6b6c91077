// SpanData → OTLP request bytes, through the OpenTelemetry JS serializers
// (protobuf or JSON). We hand them ReadableSpan objects directly: the SDK's
// tracer would re-time and re-id spans, and its batch processor drops spans on
// failure, which a backfill cannot afford.
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { SpanData } from '../core/span-data.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export const SCOPE = {
  name: 'ccotel',
  version: '0.1.0',
  schemaUrl: 'https://opentelemetry.io/schemas/gen-ai/1.42.0',
};

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

const STATUS = { UNSET: SpanStatusCode.UNSET, OK: SpanStatusCode.OK, ERROR: SpanStatusCode.ERROR } as const;

function context(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

export function toReadableSpan(span: SpanData, resource: Resource): ReadableSpan {
  const own = context(span.traceId, span.spanId);
  const startTime = hr(span.startMs);
  const endTime = hr(Math.max(span.startMs, span.endMs));
  return {
    name: span.name,
    kind: span.kind === 'CLIENT' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => own,
    ...(span.parentSpanId === null ? {} : { parentSpanContext: context(span.traceId, span.parentSpanId) }),
    startTime,
    endTime,
    duration: hr(Math.max(0, span.endMs - span.startMs)),
    status: span.status.message === undefined ? { code: STATUS[span.status.code] } : { code: STATUS[span.status.code], message: span.status.message },
    attributes: span.attributes,
    links: span.links.map((l) => ({ context: context(l.traceId, l.spanId), attributes: l.attributes })),
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** One ExportTraceServiceRequest holding `spans`. */
export function encodeSpans(spans: SpanData[], resource: Resource, protocol: OtlpProtocol): Uint8Array {
  const readable = spans.map((s) => toReadableSpan(s, resource));
  const serializer = protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const bytes = serializer.serializeRequest(readable);
  if (bytes === undefined) throw new Error('OTLP serializer returned nothing');
  return bytes;
}

export const contentTypeOf = (protocol: OtlpProtocol): string =>
  protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
