// Events as an OTLP logs request (ExportLogsServiceRequest), OTLP/JSON or
// protobuf: one ResourceLogs with one ScopeLogs, as the span requests are.
// Events are few beside spans (one per request, call and prompt), so these
// writers are plain rather than tuned as json.ts and protobuf.ts are.
import type { Resource } from '@opentelemetry/resources';
import type { LogRecordData } from '../../core/events/log-record.js';
import { SCOPE } from './scope.js';

type Json = Record<string, unknown>;

function anyValueJson(value: unknown): Json {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValueJson) } };
  return { stringValue: String(value) };
}

const attributesJson = (attrs: Record<string, unknown>): Json[] =>
  Object.entries(attrs).map(([key, value]) => ({ key, value: anyValueJson(value) }));

const nanosText = (ms: number): string => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

function recordJson(r: LogRecordData): Json {
  const time = nanosText(r.timeMs);
  return {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    body: { stringValue: r.body },
    attributes: attributesJson(r.attributes),
    droppedAttributesCount: 0,
    flags: 1,
    traceId: r.traceId,
    spanId: r.spanId,
  };
}

/** The request as OTLP/JSON text, one line (for --out and the http/json protocol). */
export function logsJson(records: LogRecordData[], resource: Resource): string {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: attributesJson(resource.attributes), droppedAttributesCount: 0 },
        scopeLogs: [
          {
            scope: { name: SCOPE.name, version: SCOPE.version },
            logRecords: records.map(recordJson),
          },
        ],
      },
    ],
  });
}

/** A growing protobuf message; nested messages are written into their own writer. */
class Writer {
  private readonly bytes: number[] = [];

  varint(value: number): this {
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
    return this;
  }

  /** An int64 as a varint: a negative one in two's complement, ten bytes. */
  int64(value: number): this {
    let rest = BigInt(value);
    if (rest < 0n) rest += 1n << 64n;
    while (rest >= 0x80n) {
      this.bytes.push(Number((rest & 0x7fn) | 0x80n));
      rest >>= 7n;
    }
    this.bytes.push(Number(rest));
    return this;
  }

  tag(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  bytesField(field: number, data: Uint8Array | number[]): this {
    this.tag(field, 2).varint(data.length);
    for (const b of data) this.bytes.push(b);
    return this;
  }

  string(field: number, text: string): this {
    return this.bytesField(field, Buffer.from(text, 'utf8'));
  }

  message(field: number, inner: Writer): this {
    return this.bytesField(field, inner.bytes);
  }

  fixed64(field: number, value: bigint): this {
    this.tag(field, 1);
    for (let i = 0n; i < 8n; i++) this.bytes.push(Number((value >> (8n * i)) & 0xffn));
    return this;
  }

  fixed32(field: number, value: number): this {
    this.tag(field, 5);
    for (let i = 0; i < 4; i++) this.bytes.push((value >>> (8 * i)) & 0xff);
    return this;
  }

  double(field: number, value: number): this {
    const buf = Buffer.alloc(8);
    buf.writeDoubleLE(value);
    this.tag(field, 1);
    for (const b of buf) this.bytes.push(b);
    return this;
  }

  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1). */
function anyValueProto(value: unknown): Writer {
  const w = new Writer();
  if (typeof value === 'string') return w.string(1, value);
  if (typeof value === 'boolean') return w.tag(2, 0).varint(value ? 1 : 0);
  if (typeof value === 'number') {
    return Number.isInteger(value) ? w.tag(3, 0).int64(value) : w.double(4, value);
  }
  if (Array.isArray(value)) {
    const array = new Writer();
    for (const item of value) array.message(1, anyValueProto(item));
    return w.message(5, array);
  }
  return w.string(1, String(value));
}

function keyValues(w: Writer, field: number, attrs: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(attrs))
    w.message(field, new Writer().string(1, key).message(2, anyValueProto(value)));
}

const idBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));

function recordProto(r: LogRecordData): Writer {
  const time = BigInt(Math.round(r.timeMs * 1000)) * 1000n;
  // No severity: Claude Code's documentation gives its events none to copy.
  const w = new Writer().fixed64(1, time);
  w.message(5, anyValueProto(r.body));
  keyValues(w, 6, r.attributes);
  return w
    .fixed32(8, 1)
    .bytesField(9, idBytes(r.traceId))
    .bytesField(10, idBytes(r.spanId))
    .fixed64(11, time);
}

/** The request as protobuf (the http/protobuf protocol). */
export function logsProtobuf(records: LogRecordData[], resource: Resource): Uint8Array {
  const res = new Writer();
  keyValues(res, 1, resource.attributes);
  const scope = new Writer().message(
    1,
    new Writer().string(1, SCOPE.name).string(2, SCOPE.version),
  );
  for (const r of records) scope.message(2, recordProto(r));
  const resourceLogs = new Writer().message(1, res).message(2, scope);
  return new Writer().message(1, resourceLogs).done();
}

/** The logs URL beside a traces URL: …/v1/traces → …/v1/logs; null when it names no /v1/traces. */
export function logsUrlBeside(tracesUrl: string): string | null {
  const trimmed = tracesUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces')
    ? `${trimmed.slice(0, -'/v1/traces'.length)}/v1/logs`
    : null;
}
