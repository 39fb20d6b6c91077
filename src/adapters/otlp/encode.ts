// SpanData → OTLP request bytes, through our direct writers (otlp-protobuf.ts,
// otlp-json.ts), which produce the same bytes as the SDK's Protobuf and JSON
// trace serializers, faster. The SDK path is the tests' reference they must
// equal (test/support/sdk-encode.ts), so no command loads the SDK.
import type { Resource } from '@opentelemetry/resources';
import type { SpanData } from '../../core/spans/data.js';
import { encodeProtobuf } from './protobuf.js';
import { encodeJson } from './json.js';

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
} from './protobuf.js';
export { SCOPE } from './scope.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

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
