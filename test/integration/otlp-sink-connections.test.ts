// The OTLP sink keeps its connection open between requests (a backfill sends
// hundreds back to back), and a connection the collector closed in between
// costs no span: the next request opens a new one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import { otlpSink, type OtlpSink } from '../../src/app/deliver/span-sink.js';
import { encodeSpanFields } from '../../src/adapters/otlp/encode.js';
import { DEFAULTS, type Settings } from '../../src/core/settings.js';
import type { SpanData } from '../../src/core/spans/data.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const span = (i: number): SpanData => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: (0x1000 + i).toString(16).padStart(16, '0'),
  parentSpanId: null,
  name: `span ${i}`,
  kind: 'INTERNAL',
  startMs: 1_767_600_000_000 + i,
  endMs: 1_767_600_000_010 + i,
  attributes: { 'ccotel.test.index': i },
  status: { code: 'OK' },
  links: [],
  complete: true,
  turnKey: 'turn',
});

describe('otlpSink connections', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  /** The sink takes spans in its own form: protobuf fields, or built spans for OTLP/JSON. */
  const sendSpans = (sink: OtlpSink, spans: SpanData[]) =>
    sink.form === 'protobuf'
      ? sink.send({
          form: 'protobuf',
          ranges: [{ encoded: encodeSpanFields(spans), from: 0, to: spans.length }],
        })
      : sink.send({ form: 'spans', spans });

  const sinkFor = (protocol: Settings['protocol']) => {
    const settings: Settings = { ...DEFAULTS, endpoint: `${receiver.url}/v1/traces`, protocol };
    const resource = buildResource({ serviceName: settings.serviceName, attributes: {} });
    return otlpSink(settings, resource, { maxRetries: 2, maxBackoffMs: 50 });
  };

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`sends requests one after another over one connection (${protocol})`, async () => {
      const sink = sinkFor(protocol);
      for (let batch = 0; batch < 5; batch++) {
        const result = await sendSpans(sink, [span(2 * batch), span(2 * batch + 1)]);
        expect(result.ok).toBe(true);
        expect(result.parts).toEqual([{ from: 0, to: 2, outcome: 'accepted' }]);
      }
      expect(receiver.requests()).toHaveLength(5);
      expect(receiver.spans().map((s) => s.name)).toEqual(
        Array.from({ length: 10 }, (_, i) => `span ${i}`),
      );
      expect(receiver.connections()).toBe(1);
    });
  }

  it('a connection the collector closed between requests: the next opens a new one, nothing lost', async () => {
    const sink = sinkFor('http/protobuf');
    expect((await sendSpans(sink, [span(0)])).ok).toBe(true);
    // stop() destroys every socket, the kept one too; restart() listens on the same port.
    await receiver.stop();
    await receiver.restart();
    const result = await sendSpans(sink, [span(1)]);
    expect(result.ok).toBe(true);
    expect(receiver.spans().map((s) => s.name)).toEqual(['span 0', 'span 1']);
    expect(receiver.connections()).toBe(2);
  });
});
