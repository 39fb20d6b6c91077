// The OpenTelemetry SDK's serializers over the same spans: the reference
// encoder the benches time the direct writers against, and the "before" of the
// reference pipeline. A copy of test/support/sdk-encode.ts for plain node (the
// benches run dist/, not TypeScript); bench-smoke's convert-throughput case
// checks that its bytes equal the direct writers'.
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

// CCOTEL_BENCH_DIST points at another build (an experiment) instead of ./dist.
const DIST =
  process.env.CCOTEL_BENCH_DIST === undefined
    ? new URL('../../dist/', import.meta.url)
    : new URL(`file://${process.env.CCOTEL_BENCH_DIST.replace(/\/?$/, '/')}`);
const { hr, SCOPE } = await import(new URL('adapters/otlp/scope.js', DIST).href);

const STATUS = { UNSET: SpanStatusCode.UNSET, OK: SpanStatusCode.OK, ERROR: SpanStatusCode.ERROR };

const context = (traceId, spanId) => ({
  traceId,
  spanId,
  traceFlags: TraceFlags.SAMPLED,
  isRemote: false,
});

function toReadableSpan(span, resource) {
  const own = context(span.traceId, span.spanId);
  return {
    name: span.name,
    kind: span.kind === 'CLIENT' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => own,
    ...(span.parentSpanId === null
      ? {}
      : { parentSpanContext: context(span.traceId, span.parentSpanId) }),
    startTime: hr(span.startMs),
    endTime: hr(Math.max(span.startMs, span.endMs)),
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

/** One ExportTraceServiceRequest through the SDK serializers. */
export function encodeSpansWithSdk(spans, resource, protocol) {
  const readable = spans.map((s) => toReadableSpan(s, resource));
  const serializer = protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const bytes = serializer.serializeRequest(readable);
  if (bytes === undefined) throw new Error('OTLP serializer returned nothing');
  return bytes;
}
