// The OTLP/protobuf sink handed only the turns' encoded span fields (as export
// hands them, holding no span of a batch): its requests, the halves after a
// 413 and the id of a span too large alone come from those fields, and they
// equal what encoding the spans gives. Requests are assembled in one reused
// buffer: batch after batch, and gzip-compressed, each arrives whole.
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  assembleRequest,
  encodeSpans,
  rangesOf,
  spanCountOf,
  spanIdOf,
  type SpanRange,
} from '../../src/adapters/otlp/encode.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import type { ProtobufTurn } from '../../src/app/read/session-spans.js';
import { sessionSpans } from '../support/whole-session.js';
import { otlpSink } from '../../src/app/deliver/span-sink.js';
import { DEFAULTS, type Settings } from '../../src/core/settings.js';
import type { SpanData } from '../../src/core/spans/data.js';
import { fixtureSessions } from '../support/fixture-sessions.js';
import { fuzz } from '../support/fuzz-config.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const resource = buildResource({ serviceName: DEFAULTS.serviceName, attributes: {} });
const turns: ProtobufTurn[] = [];
const spans: SpanData[] = [];

beforeAll(async () => {
  const prices = await loadPriceTable();
  for (const files of await fixtureSessions()) {
    if (spans.length >= 700) break;
    const session = await sessionSpans(files, prices, {
      content: DEFAULTS.content,
      maxAttributeBytes: DEFAULTS.maxAttributeBytes,
    });
    const sent = session.turns.filter((t) => t.spans.length > 0);
    turns.push(...sent);
    spans.push(...sent.flatMap((t) => t.spans));
  }
});

/** Every turn's spans as one range each, the way export fills a batch. */
const wholeTurns = (): SpanRange[] =>
  turns.map((t) => ({ encoded: t.encoded, from: 0, to: t.spans.length }));

describe('span ranges', () => {
  it('the fixtures give turns of several spans', () => {
    expect(turns.length).toBeGreaterThan(10);
    expect(spans.length).toBeGreaterThanOrEqual(700);
  });

  it('any cut of the ranges assembles the bytes that encoding those spans gives', () => {
    const all = wholeTurns();
    expect(spanCountOf(all)).toBe(spans.length);
    fc.assert(
      fc.property(
        fc.nat({ max: spans.length - 1 }),
        fc.integer({ min: 1, max: 600 }),
        (from, size) => {
          const to = Math.min(spans.length, from + size);
          const cut = rangesOf(all, from, to);
          expect(spanCountOf(cut)).toBe(to - from);
          const assembled = Buffer.from(assembleRequest(cut, resource));
          const encoded = encodeSpans(spans.slice(from, to), resource, 'http/protobuf');
          // equals(), not toEqual: a deep compare of 400 KB took a second a case.
          expect(assembled.length).toBe(encoded.length);
          expect(assembled.equals(encoded)).toBe(true);
        },
      ),
      fuzz(60),
    );
  });

  it("every span's id is read back from its fields", () => {
    const all = wholeTurns();
    expect(spans.map((_, i) => spanIdOf(all, i))).toEqual(spans.map((s) => s.spanId));
    expect(spanIdOf(all, spans.length)).toBe('?');
  });
});

describe('otlpSink from span fields alone', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  const sinkFor = (compression: Settings['compression']) => {
    const settings: Settings = {
      ...DEFAULTS,
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'http/protobuf',
      compression,
    };
    return otlpSink(settings, resource, { maxRetries: 2, maxBackoffMs: 50 });
  };
  const protobufSink = (compression: Settings['compression']) => {
    const sink = sinkFor(compression);
    if (sink.form !== 'protobuf') throw new Error('an http/protobuf sink takes protobuf fields');
    return sink;
  };
  const ids = (list: { spanId: string }[]): string[] => list.map((s) => s.spanId);

  for (const compression of ['none', 'gzip'] as const) {
    it(`batch after batch in one buffer, each request whole (compression ${compression})`, async () => {
      const sink = sinkFor(compression);
      if (sink.form !== 'protobuf') throw new Error('an http/protobuf sink takes protobuf fields');
      const all = wholeTurns();
      const sizes = [7, 300, 1, 64, spans.length];
      let from = 0;
      for (const size of sizes) {
        const to = Math.min(spans.length, from + size);
        if (to === from) break;
        const result = await sink.send({ form: 'protobuf', ranges: rangesOf(all, from, to) });
        expect(result.ok).toBe(true);
        expect(result.parts).toEqual([{ from: 0, to: to - from, outcome: 'accepted' }]);
        from = to;
      }
      expect(ids(receiver.spans())).toEqual(ids(spans.slice(0, from)));
      expect(receiver.requests().every((r) => r.gzip === (compression === 'gzip'))).toBe(true);
    });
  }

  it('413: halves assembled from the fields until they pass, every span once', async () => {
    receiver.limitSpans(5);
    const sink = protobufSink('none');
    const batch = rangesOf(wholeTurns(), 0, 40);
    const result = await sink.send({ form: 'protobuf', ranges: batch });
    expect(result.ok).toBe(true);
    expect(result.parts.every((p) => p.outcome === 'accepted')).toBe(true);
    expect(result.parts.at(-1)?.to).toBe(40);
    expect(ids(receiver.spans())).toEqual(ids(spans.slice(0, 40)));
    expect(receiver.requests().some((r) => r.status === 413)).toBe(true);
  });

  it('a span too large even alone is named by the id in its fields', async () => {
    receiver.limitSpans(0);
    const result = await protobufSink('none').send({
      form: 'protobuf',
      ranges: rangesOf(wholeTurns(), 3, 5),
    });
    expect(result.ok).toBe(true);
    expect(result.parts.map((p) => (p.outcome === 'too-large' ? p.spanId : p.outcome))).toEqual(
      ids(spans.slice(3, 5)),
    );
    expect(receiver.spans()).toHaveLength(0);
  });

  it('an http/json sink takes built spans, and span fields only as a type error', async () => {
    const settings: Settings = {
      ...DEFAULTS,
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'http/json',
    };
    const sink = otlpSink(settings, resource, { maxRetries: 2, maxBackoffMs: 50 });
    if (sink.form !== 'spans') throw new Error('an http/json sink takes built spans');
    // Checked by tsc (the test files are type-checked): a batch of another form does not compile.
    // @ts-expect-error span fields are no batch for a sink of built spans
    const wrong: Parameters<typeof sink.send>[0] = { form: 'protobuf', ranges: wholeTurns() };
    expect(wrong.form).toBe('protobuf');
    const result = await sink.send({ form: 'spans', spans: spans.slice(0, 3) });
    expect(result.parts).toEqual([{ from: 0, to: 3, outcome: 'accepted' }]);
    expect(ids(receiver.spans())).toEqual(ids(spans.slice(0, 3)));
    expect(receiver.requests().every((r) => r.contentType === 'application/json')).toBe(true);
  });
});
