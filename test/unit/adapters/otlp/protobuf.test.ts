// The direct protobuf writer copies an attribute whose value repeats that of
// the span before, and a trace or parent id written last, instead of encoding
// them again. Spans drawn from small pools of keys, values and ids (so that
// repeats are the rule, within a request and across requests) must still
// encode as the OpenTelemetry SDK serializer does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSpanFields, encodeSpans } from '../../../../src/adapters/otlp/encode.js';
import { encodeSpansWithSdk } from '../../../support/sdk-encode.js';
import { buildResource } from '../../../../src/adapters/otlp/resource.js';
import type { AttributeValue, SpanData } from '../../../../src/core/spans/data.js';
import { fuzz } from '../../../support/fuzz-config.js';

const resource = buildResource({ serviceName: 'repeats', attributes: {} });
const sdk = (spans: SpanData[]): Buffer =>
  Buffer.from(encodeSpansWithSdk(spans, resource, 'http/protobuf'));

const ids = (n: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => (i + 1).toString(16).repeat(n).slice(0, n));
const traceId = fc.constantFrom(...ids(32, 3));
const spanId = fc.constantFrom(...ids(16, 4));
const value: fc.Arbitrary<AttributeValue> = fc.constantFrom<AttributeValue>(
  'sess-1',
  'sess-2',
  'é ✓ 漢',
  'x'.repeat(200),
  '',
  0,
  1,
  -0,
  2 ** 40,
  0.5,
  Number.NaN,
  true,
  false,
  ['a', 'b'],
);
const attributes = fc.dictionary(fc.constantFrom('k.a', 'k.b', 'k.c', 'k.d', 'k.e'), value, {
  maxKeys: 5,
});
const span: fc.Arbitrary<SpanData> = fc.record({
  traceId,
  spanId,
  parentSpanId: fc.option(spanId, { nil: null }),
  name: fc.constantFrom('a', 'b'),
  kind: fc.constantFrom('INTERNAL' as const, 'CLIENT' as const),
  startMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  endMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  attributes,
  status: fc.constant({ code: 'OK' as const }),
  links: fc.array(fc.record({ traceId, spanId, attributes }), { maxLength: 1 }),
  complete: fc.boolean(),
  turnKey: fc.constant('t'),
});

describe('direct protobuf writer with repeated attributes and ids = SDK serializer', () => {
  it('request after request of spans from small pools', () => {
    fc.assert(
      fc.property(fc.array(fc.array(span, { maxLength: 10 }), { maxLength: 4 }), (requests) => {
        for (const spans of requests) {
          expect(
            Buffer.from(encodeSpans(spans, resource, 'http/protobuf')).equals(sdk(spans)),
          ).toBe(true);
          // Span fields (what export hashes and sends) are the same bytes as in the request.
          const fields = Buffer.from(encodeSpanFields(spans).bytes);
          expect(sdk(spans).includes(fields)).toBe(true);
        }
      }),
      fuzz(300),
    );
  });

  it('an array value changed under the same reference is encoded anew', () => {
    const list = ['before'];
    const at = (i: number): SpanData => ({
      traceId: ids(32, 1)[0] as string,
      spanId: (ids(16, 4)[i] as string) ?? '1'.repeat(16),
      parentSpanId: null,
      name: 'n',
      kind: 'INTERNAL',
      startMs: 1,
      endMs: 2,
      attributes: { 'k.list': list },
      status: { code: 'OK' },
      links: [],
      complete: true,
      turnKey: 't',
    });
    const first = [at(0), at(1)];
    expect(Buffer.from(encodeSpans(first, resource, 'http/protobuf')).equals(sdk(first))).toBe(
      true,
    );
    list[0] = 'after';
    const second = [at(2)];
    expect(Buffer.from(encodeSpans(second, resource, 'http/protobuf')).equals(sdk(second))).toBe(
      true,
    );
  });
});
