// The OTLP logs writers (src/adapters/otlp/logs.ts) against the SDK's
// ProtobufLogsSerializer and JsonLogsSerializer: the same log records decoded
// from each (an independent protobufjs schema for protobuf), for every
// fixture session's events in Claude Code's schema and for generated records
// (odd strings, negative and large integers, doubles, arrays).
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { logsJson, logsProtobuf, logsUrlBeside } from '../../../../src/adapters/otlp/logs.js';
import { buildResource } from '../../../../src/adapters/otlp/resource.js';
import { hr, SCOPE } from '../../../../src/adapters/otlp/scope.js';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import { costSession } from '../../../../src/core/cost/session-cost.js';
import type { LogRecordData } from '../../../../src/core/events/log-record.js';
import { buildTurnEvents } from '../../../../src/core/events/native-events.js';
import type { AttributeValue, SpanOptions } from '../../../../src/core/spans/data.js';
import { decodeOtlpLogsRequest } from '../../../support/otlp-decode.js';
import { fixtureSessions } from '../../../support/fixture-sessions.js';
import { sessionSpans } from '../../../support/whole-session.js';

const OPTIONS: SpanOptions = { content: 'full', maxAttributeBytes: 2048, schema: 'claude-code' };
const resource = buildResource({
  serviceName: 'claude-code',
  attributes: { 'telemetry.source': 'ccotel', 'deployment.environment': 'tést ✓ "q" \\ \u2028' },
});

function toReadable(r: LogRecordData): ReadableLogRecord {
  return {
    hrTime: hr(r.timeMs),
    hrTimeObserved: hr(r.timeMs),
    spanContext: { traceId: r.traceId, spanId: r.spanId, traceFlags: TraceFlags.SAMPLED },
    body: r.body,
    resource,
    instrumentationScope: SCOPE,
    attributes: r.attributes,
    droppedAttributesCount: 0,
  };
}

/** The three encodings of one request, decoded: ours (JSON, protobuf) and the SDK's protobuf. */
function decodedThreeWays(records: LogRecordData[]) {
  const ours = {
    json: decodeOtlpLogsRequest(Buffer.from(logsJson(records, resource)), 'json'),
    protobuf: decodeOtlpLogsRequest(logsProtobuf(records, resource), 'protobuf'),
  };
  const readable = records.map(toReadable);
  const sdk = {
    protobuf: decodeOtlpLogsRequest(
      ProtobufLogsSerializer.serializeRequest(readable) as Uint8Array,
      'protobuf',
    ),
    json: decodeOtlpLogsRequest(
      JsonLogsSerializer.serializeRequest(readable) as Uint8Array,
      'json',
    ),
  };
  return { ours, sdk };
}

let events: LogRecordData[][] = [];

beforeAll(async () => {
  const prices = await loadPriceTable();
  for (const files of await fixtureSessions()) {
    const { model } = await sessionSpans(files, prices, OPTIONS);
    const costs = costSession(model, prices);
    for (const turn of model.turns) events.push(buildTurnEvents(model, turn.index, costs, OPTIONS));
  }
  events = events.filter((e) => e.length > 0);
});

describe('OTLP logs writers against the SDK serializers', () => {
  it('decode alike for every fixture turn', () => {
    expect(events.length).toBeGreaterThan(40);
    for (const records of events) {
      const { ours, sdk } = decodedThreeWays(records);
      expect(ours.protobuf).toEqual(sdk.protobuf);
      expect(ours.json).toEqual(sdk.json);
      expect(ours.json).toEqual(ours.protobuf);
    }
  });

  const value: fc.Arbitrary<AttributeValue> = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
    fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 4 }),
  );
  const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
  const record: fc.Arbitrary<LogRecordData> = fc.record({
    timeMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    body: fc.string({ unit: 'grapheme' }),
    attributes: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), value, { maxKeys: 6 }),
    traceId: hex(32),
    spanId: hex(16),
    turnKey: fc.constant('t'),
    of: fc.constant('s'),
  });

  it('decode alike for generated records', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), (records) => {
        const { ours, sdk } = decodedThreeWays(records);
        expect(ours.protobuf).toEqual(sdk.protobuf);
        expect(ours.json).toEqual(sdk.json);
      }),
      { numRuns: 300 },
    );
  });

  it('puts the logs URL beside the traces URL', () => {
    expect(logsUrlBeside('http://c:4318/v1/traces')).toBe('http://c:4318/v1/logs');
    expect(logsUrlBeside('https://c/otlp/v1/traces/')).toBe('https://c/otlp/v1/logs');
    expect(logsUrlBeside('https://c/api/spans')).toBeNull();
  });
});
