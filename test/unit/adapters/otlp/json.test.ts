// The direct OTLP/JSON writer (otlp-json.ts) against the SDK's
// JsonTraceSerializer: byte-identical requests for every fixture session in
// every content mode, and for generated spans (odd strings, lone surrogates,
// numbers JSON writes specially, times whose nanoseconds carry).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeSpans } from '../../../../src/adapters/otlp/encode.js';
import { encodeSpansWithSdk } from '../../../support/sdk-encode.js';
import {
  encodeJson,
  encodeJsonLine,
  encodeJsonSpans,
  jsonLineOfRanges,
} from '../../../../src/adapters/otlp/json.js';
import type { SpanRange } from '../../../../src/adapters/otlp/protobuf.js';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import { buildResource } from '../../../../src/adapters/otlp/resource.js';
import type { SessionFiles } from '../../../../src/adapters/files/session-files.js';
import { sessionSpans } from '../../../support/whole-session.js';
import type { PriceTable } from '../../../../src/core/cost/pricing.js';
import type { AttributeValue, ContentMode, SpanData } from '../../../../src/core/spans/data.js';
import { fixtureSessions } from '../../../support/fixture-sessions.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const fixturesDir = join(repoRoot, 'fixtures');
const MODES: ContentMode[] = ['none', 'labels', 'full'];
const resource = buildResource({
  serviceName: 'claude-code',
  attributes: { 'host.name': 'bench', 'deployment.environment': 'tést ✓ "q" \\ \u2028' },
});

const sdkJson = (spans: SpanData[]): Buffer =>
  Buffer.from(encodeSpansWithSdk(spans, resource, 'http/json'));

let sessions: SessionFiles[] = [];
let prices: PriceTable;

beforeAll(async () => {
  prices = await loadPriceTable();
  sessions = await fixtureSessions(fixturesDir);
});

describe('direct OTLP/JSON = SDK JsonTraceSerializer, on every fixture', () => {
  for (const content of MODES) {
    it(`byte-identical requests (content: ${content})`, async () => {
      expect(sessions.length).toBeGreaterThan(40);
      let spanCount = 0;
      for (const files of sessions) {
        const where = files.mainFile.slice(fixturesDir.length + 1);
        const { turns } = await sessionSpans(files, prices, { content, maxAttributeBytes: 2048 });
        const spans = turns.flatMap((t) => t.spans);
        spanCount += spans.length;
        const direct = Buffer.from(encodeJson(spans, resource));
        expect(direct.toString('utf8'), where).toBe(sdkJson(spans).toString('utf8'));
        expect(direct.equals(sdkJson(spans)), where).toBe(true);
        expect(Buffer.from(encodeSpans(spans, resource, 'http/json')).equals(direct), where).toBe(
          true,
        );
        // Per turn, as small requests are cut.
        for (const turn of turns)
          expect(Buffer.from(encodeJson(turn.spans, resource)).equals(sdkJson(turn.spans))).toBe(
            true,
          );
      }
      expect(spanCount).toBeGreaterThan(500);
    });
  }

  it('no spans: the SDK text, an empty resourceSpans', () => {
    expect(Buffer.from(encodeJson([], resource)).equals(sdkJson([]))).toBe(true);
    expect(Buffer.from(encodeJson([], resource)).toString()).toBe('{"resourceSpans":[]}');
    expect(Buffer.from(encodeJsonLine([], resource)).toString()).toBe('{"resourceSpans":[]}\n');
  });
});

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom('\ud800', 'a\udfffb', '"\\/\u2028\u2029\u0000\u007f', '__proto__', ''),
);
const attributeValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  text,
  fc.boolean(),
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.double(),
  fc.constantFrom(
    2 ** 60,
    1e21,
    -(2 ** 62),
    0.1,
    -0,
    5e-7,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.array(text, { maxLength: 4 }),
);
const attributes = fc.dictionary(text, attributeValue, { maxKeys: 25 });
const time = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.double({ min: 0, max: 4_102_444_800_000, noNaN: true }),
  // Fractions, nanoseconds that round up to a whole second, the epoch, before it.
  fc.constantFrom(1_700_000_000_999.75, 0, 999.9999999, 0.5, -1500.25, -1),
);
const span: fc.Arbitrary<SpanData> = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  parentSpanId: fc.option(fc.oneof(hex(16), fc.constant('')), { nil: null }),
  name: text,
  kind: fc.constantFrom('INTERNAL' as const, 'CLIENT' as const),
  startMs: time,
  endMs: time,
  attributes,
  status: fc.oneof(
    fc.record({ code: fc.constantFrom('UNSET' as const, 'OK' as const, 'ERROR' as const) }),
    fc.record({
      code: fc.constantFrom('UNSET' as const, 'OK' as const, 'ERROR' as const),
      message: text,
    }),
  ),
  links: fc.array(fc.record({ traceId: hex(32), spanId: hex(16), attributes }), { maxLength: 2 }),
  complete: fc.boolean(),
  turnKey: fc.string(),
});

describe('direct OTLP/JSON = SDK JsonTraceSerializer, on generated spans', () => {
  it('byte-identical requests', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 12 }), (spans) => {
        expect(Buffer.from(encodeJson(spans, resource)).equals(sdkJson(spans))).toBe(true);
        const line = Buffer.from(encodeJsonLine(spans, resource));
        expect(line.equals(Buffer.concat([sdkJson(spans), Buffer.from('\n')]))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a line put together from turns encoded apart is the line of their spans', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(span, { maxLength: 6 }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 9 }),
        (turns, batchSize) => {
          // Encoded one turn at a time, as --out does, then cut into batches as export cuts them.
          const encoded = turns.map((t) => encodeJsonSpans(t));
          const batches: { spans: SpanData[]; ranges: SpanRange[] }[] = [];
          let current: { spans: SpanData[]; ranges: SpanRange[] } = { spans: [], ranges: [] };
          turns.forEach((t, i) => {
            for (let from = 0; from < t.length;) {
              const to = Math.min(t.length, from + batchSize - current.spans.length);
              current.spans.push(...t.slice(from, to));
              current.ranges.push({ encoded: encoded[i]!, from, to });
              from = to;
              if (current.spans.length >= batchSize) {
                batches.push(current);
                current = { spans: [], ranges: [] };
              }
            }
          });
          batches.push(current);
          for (const b of batches) {
            const line = Buffer.from(jsonLineOfRanges(b.ranges, resource));
            expect(line.toString()).toBe(Buffer.from(encodeJsonLine(b.spans, resource)).toString());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('values outside SpanData as the SDK writes them: bytes, nested lists, nothing', () => {
    const odd = {
      bytes: new Uint8Array([0, 1, 254, 255]),
      nested: { a: [1, 'x', null], b: { c: true } },
      none: undefined,
      nul: null,
    } as unknown as Record<string, AttributeValue>;
    const base: SpanData = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: null,
      name: 'x',
      kind: 'INTERNAL',
      startMs: 1_700_000_000_000,
      endMs: 1_700_000_000_001,
      attributes: odd,
      status: { code: 'OK' },
      links: [],
      complete: true,
      turnKey: 'k',
    };
    expect(Buffer.from(encodeJson([base], resource)).toString()).toBe(sdkJson([base]).toString());
    // A request past the writer's 1 MB scratch buffer, wide characters in the long values.
    const big = Array.from({ length: 600 }, (_, i) => ({
      ...base,
      spanId: i.toString(16).padStart(16, '0'),
      attributes: { text: `é${'x'.repeat(1500)}${i}`, n: i, ok: i % 2 === 0 },
    }));
    const direct = Buffer.from(encodeJson(big, resource));
    expect(direct.length).toBeGreaterThan(1 << 20);
    expect(direct.equals(sdkJson(big))).toBe(true);
  });

  it("integers and times at the digit writer's boundaries (2^31, 10^9 parts, 2^53)", () => {
    const edges = [0, 9, 10, 2 ** 31 - 1, 2 ** 31, 1e9 - 1, 1e9, 1e9 + 1, 2e9 - 1, 1e18 / 1e3];
    const near = [2 ** 53 - 1, 2 ** 53 - 2, 9_007_199_254_740_991 - 1e9, 8_999_999_999_999_999];
    const values = [...edges, ...near.filter(Number.isSafeInteger)];
    for (const ms of [...values, 999, 1000, 1001, 1_772_581_492_777, 2 ** 53 - 1]) {
      const spans: SpanData[] = values.map((n, i) => ({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: i.toString(16).padStart(16, '0'),
        parentSpanId: null,
        name: 'n',
        kind: 'CLIENT',
        startMs: ms,
        endMs: ms + i,
        attributes: { n, minus: -n, half: n / 2 },
        status: { code: 'UNSET' },
        links: [],
        complete: true,
        turnKey: 'k',
      }));
      expect(Buffer.from(encodeJson(spans, resource)).toString()).toBe(sdkJson(spans).toString());
    }
  });
});
