// Proves the test receiver and decoder against the real OTel serializers, so
// later integration tests can trust what the receiver reports. Expected values
// are written out by hand, not derived from the decoder under test.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import {
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DecodedSpan } from './otlp-decode.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import type { OtlpReceiver } from './otlp-receiver.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const OTHER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const ROOT = 'eee19b7ec3c1b174';
const CHILD = 'eee19b7ec3c1b173';
const SIBLING = '00f067aa0ba902b7';
const LINKED = 'b7ad6b7169203331';

const resource = resourceFromAttributes({
  'service.name': 'ccotel-test',
  'service.version': '0.1.0',
});
const scope = { name: 'ccotel', version: '0.1.0' };
const ctx = (traceId: string, spanId: string) => ({
  traceId,
  spanId,
  traceFlags: TraceFlags.SAMPLED,
});

function span(
  p: Pick<ReadableSpan, 'name' | 'kind' | 'startTime' | 'endTime' | 'status' | 'attributes'> & {
    spanId: string;
    parent?: string;
    links?: ReadableSpan['links'];
    events?: ReadableSpan['events'];
  },
): ReadableSpan {
  return {
    name: p.name,
    kind: p.kind,
    spanContext: () => ctx(TRACE, p.spanId),
    parentSpanContext: p.parent ? ctx(TRACE, p.parent) : undefined,
    startTime: p.startTime,
    endTime: p.endTime,
    duration: [0, 0],
    ended: true,
    status: p.status,
    attributes: p.attributes,
    links: p.links ?? [],
    events: p.events ?? [],
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

const SPANS: ReadableSpan[] = [
  span({
    name: 'invoke_agent claude-code',
    kind: SpanKind.INTERNAL,
    spanId: ROOT,
    startTime: [1_700_000_000, 123_456_789],
    endTime: [1_700_000_005, 0],
    status: { code: SpanStatusCode.UNSET },
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'ccotel.turns': 3,
      'ccotel.ratio': 0.25,
      'ccotel.sidechain': false,
    },
    events: [
      {
        name: 'gen_ai.user.message',
        time: [1_700_000_000, 500],
        attributes: { 'ccotel.chars': 12 },
      },
    ],
  }),
  span({
    name: 'chat claude-sonnet',
    kind: SpanKind.CLIENT,
    spanId: CHILD,
    parent: ROOT,
    startTime: [1_700_000_001, 0],
    endTime: [1_700_000_002, 999_999_999],
    status: { code: SpanStatusCode.ERROR, message: 'rate limited' },
    attributes: {
      'gen_ai.usage.input_tokens': 0,
      'ccotel.big': 2 ** 40,
      'ccotel.neg': -7,
      'ccotel.temp': 1.5,
      'ccotel.ok': true,
      'gen_ai.response.finish_reasons': ['end_turn', 'tool_use'],
      'ccotel.empty': [],
      'ccotel.ints': [1, 2, 3],
      'ccotel.flags': [true, false],
    },
    links: [{ context: ctx(OTHER_TRACE, LINKED), attributes: { 'ccotel.link': 'resumed-from' } }],
  }),
  span({
    name: 'execute_tool Bash',
    kind: SpanKind.INTERNAL,
    spanId: SIBLING,
    parent: ROOT,
    startTime: [1_700_000_003, 1],
    endTime: [1_700_000_003, 2],
    status: { code: SpanStatusCode.OK },
    attributes: {},
  }),
];

const RES = { 'service.name': 'ccotel-test', 'service.version': '0.1.0' };
const base = { resource: RES, scope, links: [], events: [] };
const EXPECTED: DecodedSpan[] = [
  {
    ...base,
    traceId: TRACE,
    spanId: ROOT,
    parentSpanId: '',
    name: 'invoke_agent claude-code',
    kind: 'INTERNAL',
    startTimeUnixNano: 1_700_000_000_123_456_789n,
    endTimeUnixNano: 1_700_000_005_000_000_000n,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'ccotel.turns': 3,
      'ccotel.ratio': 0.25,
      'ccotel.sidechain': false,
    },
    status: { code: 'UNSET', message: '' },
    events: [
      {
        name: 'gen_ai.user.message',
        timeUnixNano: 1_700_000_000_000_000_500n,
        attributes: { 'ccotel.chars': 12 },
      },
    ],
  },
  {
    ...base,
    traceId: TRACE,
    spanId: CHILD,
    parentSpanId: ROOT,
    name: 'chat claude-sonnet',
    kind: 'CLIENT',
    startTimeUnixNano: 1_700_000_001_000_000_000n,
    endTimeUnixNano: 1_700_000_002_999_999_999n,
    attributes: {
      'gen_ai.usage.input_tokens': 0,
      'ccotel.big': 1_099_511_627_776,
      'ccotel.neg': -7,
      'ccotel.temp': 1.5,
      'ccotel.ok': true,
      'gen_ai.response.finish_reasons': ['end_turn', 'tool_use'],
      'ccotel.empty': [],
      'ccotel.ints': [1, 2, 3],
      'ccotel.flags': [true, false],
    },
    status: { code: 'ERROR', message: 'rate limited' },
    links: [
      { traceId: OTHER_TRACE, spanId: LINKED, attributes: { 'ccotel.link': 'resumed-from' } },
    ],
  },
  {
    ...base,
    traceId: TRACE,
    spanId: SIBLING,
    parentSpanId: ROOT,
    name: 'execute_tool Bash',
    kind: 'INTERNAL',
    startTimeUnixNano: 1_700_000_003_000_000_001n,
    endTimeUnixNano: 1_700_000_003_000_000_002n,
    attributes: {},
    status: { code: 'OK', message: '' },
  },
];

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

// agent:false: a fresh connection per request, so stop/restart tests see real
// connection errors instead of a pooled socket's leftovers.
function post(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  timeoutMs?: number,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    if (timeoutMs !== undefined)
      req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const PROTO = { 'Content-Type': 'application/x-protobuf' };
const protoBody = (): Uint8Array =>
  ProtobufTraceSerializer.serializeRequest(SPANS) ?? new Uint8Array();
const jsonBody = (): Uint8Array => JsonTraceSerializer.serializeRequest(SPANS) ?? new Uint8Array();

let rx: OtlpReceiver;
beforeEach(async () => {
  rx = await startOtlpReceiver();
});
afterEach(async () => {
  await rx.stop();
});

describe('decoding real serializer output', () => {
  const cases = [
    { label: 'protobuf', type: 'application/x-protobuf', body: protoBody, gzip: false },
    { label: 'protobuf+gzip', type: 'application/x-protobuf', body: protoBody, gzip: true },
    { label: 'json', type: 'application/json', body: jsonBody, gzip: false },
    { label: 'json+gzip', type: 'application/json', body: jsonBody, gzip: true },
  ];
  for (const c of cases) {
    it(`decodes ${c.label} exactly`, async () => {
      const raw = c.body();
      const wire = c.gzip ? gzipSync(raw) : raw;
      const headers: Record<string, string> = {
        'Content-Type': c.type,
        ...(c.gzip ? { 'Content-Encoding': 'gzip' } : {}),
      };
      const res = await post(`${rx.url}/v1/traces`, wire, headers);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(c.type);
      // Empty ExportTraceServiceResponse: zero bytes in protobuf, {} in JSON.
      expect(res.body.toString()).toBe(c.type === 'application/json' ? '{}' : '');
      expect(rx.spans()).toEqual(EXPECTED);
      const [req] = rx.requests();
      expect(req).toMatchObject({
        path: '/v1/traces',
        contentType: c.type,
        encoding: c.type === 'application/json' ? 'json' : 'protobuf',
        gzip: c.gzip,
        bodyBytes: wire.length,
        status: 200,
      });
      expect(req?.spans).toEqual(EXPECTED);
      expect(req?.receivedAt).toBeGreaterThan(0);
    });
  }

  it('rejects an undecodable body with 400 and counts no spans', async () => {
    const res = await post(`${rx.url}/v1/traces`, Buffer.from('{"resourceSpans":'), {
      'Content-Type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect(rx.spans()).toEqual([]);
    expect(rx.requests()[0]?.status).toBe(400);
  });
});

describe('scripted faults', () => {
  it('answers 503 with Retry-After after a delay, then accepts the retry', async () => {
    rx.script([{ status: 503, retryAfter: '2', delayMs: 150 }]);
    const t0 = performance.now();
    const first = await post(`${rx.url}/v1/traces`, protoBody(), PROTO);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBe('2');
    expect(rx.spans()).toEqual([]);

    const second = await post(`${rx.url}/v1/traces`, protoBody(), PROTO);
    expect(second.status).toBe(200);
    expect(rx.spans()).toHaveLength(3);
    // The failed attempt is still visible, with the spans it carried.
    expect(rx.requests().map((r) => [r.status, r.spans.length])).toEqual([
      [503, 3],
      [200, 3],
    ]);
  });

  it('resets the connection without answering', async () => {
    rx.script([{ reset: true }]);
    await expect(post(`${rx.url}/v1/traces`, protoBody(), PROTO)).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    expect(rx.spans()).toEqual([]);
    expect(rx.requests()[0]?.status).toBe(0);
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(200);
  });

  it('hangs until the client times out, without blocking later requests', async () => {
    rx.script([{ hang: true }]);
    await expect(post(`${rx.url}/v1/traces`, protoBody(), PROTO, 200)).rejects.toThrow(
      'client timeout',
    );
    expect(rx.spans()).toEqual([]);
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(200);
  });

  it('setMode fails every request until set back to accept', async () => {
    rx.setMode({ status: 500 });
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(500);
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(500);
    rx.setMode('accept');
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(200);
    expect(rx.spans()).toHaveLength(3);
  });

  it('refuses connections while stopped and accepts again on the same port after restart', async () => {
    const port = rx.port;
    await rx.stop();
    await expect(post(`${rx.url}/v1/traces`, protoBody(), PROTO)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await rx.restart();
    expect(rx.port).toBe(port);
    expect((await post(`${rx.url}/v1/traces`, protoBody(), PROTO)).status).toBe(200);
    expect(rx.spans()).toHaveLength(3);
  });

  it('stop() cuts a hung connection instead of waiting for it', async () => {
    rx.script([{ hang: true }]);
    const pending = post(`${rx.url}/v1/traces`, protoBody(), PROTO);
    // Only stop once the receiver holds the request, otherwise it would be refused, not cut.
    await expect.poll(() => rx.requests().length).toBe(1);
    const t0 = performance.now();
    await rx.stop();
    expect(performance.now() - t0).toBeLessThan(1_000);
    await expect(pending).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('answers 404 for other paths and methods, 415 for other content types', async () => {
    expect((await post(`${rx.url}/v1/metrics`, protoBody(), PROTO)).status).toBe(404);
    const get = await new Promise<number>((resolve, reject) => {
      http
        .get(`${rx.url}/v1/traces`, { agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(get).toBe(404);
    expect(
      (await post(`${rx.url}/v1/traces`, protoBody(), { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect(rx.requests()).toEqual([]);
  });
});

describe('logs', () => {
  const logsBody = (): Uint8Array =>
    ProtobufLogsSerializer.serializeRequest([
      {
        hrTime: [1_700_000_000, 5],
        hrTimeObserved: [1_700_000_000, 5],
        body: 'claude_code.tool_result',
        resource: resourceFromAttributes({ 'service.name': 'claude-code' }),
        instrumentationScope: { name: 'sdk' },
        attributes: { success: 'true', duration_ms: 12 },
        droppedAttributesCount: 0,
      },
    ]) as Uint8Array;

  it('decodes /v1/logs with the vendored schema and answers as scripted', async () => {
    expect((await post(`${rx.url}/v1/logs`, logsBody(), PROTO)).status).toBe(200);
    expect(rx.logs().map((l) => [l.body, l.attributes, l.timeUnixNano])).toEqual([
      ['claude_code.tool_result', { success: 'true', duration_ms: 12 }, 1_700_000_000_000_000_005n],
    ]);
    rx.scriptLogs([{ status: 503 }]);
    expect((await post(`${rx.url}/v1/logs`, logsBody(), PROTO)).status).toBe(503);
    rx.setLogsMode({ rejectRecords: 1, message: 'quota' });
    const partial = await post(`${rx.url}/v1/logs`, logsBody(), PROTO);
    expect(partial.status).toBe(200);
    expect(rx.logs()).toHaveLength(1);
    // Spans are another matter: none arrived.
    expect(rx.spans()).toEqual([]);
  });
});

describe('waiting for spans', () => {
  it('resolves once enough spans arrived and notifies onSpans listeners', async () => {
    const seen: number[] = [];
    rx.onSpans((s) => seen.push(s.length));
    const waiting = rx.waitForSpans(6, 2_000);
    await post(`${rx.url}/v1/traces`, protoBody(), PROTO);
    await post(`${rx.url}/v1/traces`, jsonBody(), { 'Content-Type': 'application/json' });
    expect(await waiting).toHaveLength(6);
    expect(seen).toEqual([3, 3]);
  });

  it('rejects with a count when the spans never come', async () => {
    await expect(rx.waitForSpans(1, 50)).rejects.toThrow('0/1 spans');
  });
});
