// Decodes OTLP/HTTP trace and logs export bodies (protobuf or OTLP/JSON,
// optionally gzip) into one normalized span (or log record) shape, so every test asserts against the
// same structure whatever encoding the exporter chose.
//
// Protobuf is decoded with the vendored schema in ./otlp-proto via protobufjs,
// never with the serializer that produced the bytes: a serializer bug must not
// be able to cancel itself out.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

export type AttrScalar = string | number | boolean;
export type AttrValue = AttrScalar | AttrScalar[];
export type Attributes = Record<string, AttrValue>;

export type DecodedKind =
  'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER' | 'UNSPECIFIED';
export type DecodedStatusCode = 'UNSET' | 'OK' | 'ERROR';
export type OtlpEncoding = 'protobuf' | 'json';

export interface DecodedSpan {
  traceId: string; // 32 lowercase hex
  spanId: string; // 16 lowercase hex
  parentSpanId: string; // '' for a root span
  name: string;
  kind: DecodedKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  status: { code: DecodedStatusCode; message: string };
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  events: { name: string; timeUnixNano: bigint; attributes: Record<string, unknown> }[];
  resource: Attributes;
  scope: { name: string; version: string };
}

const PROTO_DIR = fileURLToPath(new URL('./otlp-proto/', import.meta.url));
const PKG = 'opentelemetry.proto.collector.trace.v1';

// Parsed once per process: loadSync is cheap but not free, and benchmarks decode a lot.
let root: protobuf.Root | undefined;
function otlpRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  // Upstream import paths are relative to the repo root of opentelemetry-proto.
  r.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  r.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  r.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  r.resolveAll();
  root = r;
  return r;
}

/** Maps a Content-Type header to an OTLP encoding; undefined when unsupported. */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const base = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (base === 'application/x-protobuf') return 'protobuf';
  if (base === 'application/json') return 'json';
  return undefined;
}

/** Decodes one request body. Throws on malformed input (the receiver answers 400). */
export function decodeOtlpRequest(
  body: Uint8Array,
  encoding: OtlpEncoding,
  contentEncoding?: string,
): DecodedSpan[] {
  const raw = contentEncoding?.trim().toLowerCase() === 'gzip' ? gunzipSync(body) : body;
  return encoding === 'protobuf'
    ? decodeProtobufTraces(raw)
    : decodeJsonTraces(Buffer.from(raw).toString('utf8'));
}

export function decodeProtobufTraces(bytes: Uint8Array): DecodedSpan[] {
  const type = otlpRoot().lookupType(`${PKG}.ExportTraceServiceRequest`);
  // longs as decimal strings and bytes as base64 give exactly the OTLP/JSON
  // shape except for ids, so both encodings share one normalizer below.
  const obj = type.toObject(type.decode(bytes), { longs: String, bytes: String, enums: Number });
  return normalize(obj, base64ToHex);
}

export function decodeJsonTraces(text: string): DecodedSpan[] {
  return normalize(JSON.parse(text) as unknown, (v) => str(v).toLowerCase());
}

/** An ExportTraceServiceResponse; with `partial`, its partial_success (rejected spans, message). */
export function encodeExportResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedSpans: number; errorMessage: string },
): Buffer {
  if (encoding === 'json')
    return Buffer.from(
      partial === undefined
        ? '{}'
        : // OTLP/JSON: lowerCamelCase keys, int64 as a decimal string.
          JSON.stringify({
            partialSuccess: {
              rejectedSpans: String(partial.rejectedSpans),
              errorMessage: partial.errorMessage,
            },
          }),
    );
  const type = otlpRoot().lookupType(`${PKG}.ExportTraceServiceResponse`);
  const message = partial === undefined ? {} : { partialSuccess: partial };
  return Buffer.from(type.encode(type.create(message)).finish());
}

// ---- normalization of the OTLP/JSON-shaped object ----

type Obj = Record<string, unknown>;
const KINDS: DecodedKind[] = [
  'UNSPECIFIED',
  'INTERNAL',
  'SERVER',
  'CLIENT',
  'PRODUCER',
  'CONSUMER',
];
const CODES: DecodedStatusCode[] = ['UNSET', 'OK', 'ERROR'];

function normalize(req: unknown, id: (v: unknown) => string): DecodedSpan[] {
  const out: DecodedSpan[] = [];
  for (const rs of list(obj(req).resourceSpans)) {
    const resource = attrs(obj(obj(rs).resource).attributes);
    for (const ss of list(obj(rs).scopeSpans)) {
      const sc = obj(obj(ss).scope);
      const scope = { name: str(sc.name), version: str(sc.version) };
      for (const s of list(obj(ss).spans).map(obj)) {
        const status = obj(s.status);
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          name: str(s.name),
          kind: enumName(s.kind, KINDS, 'SPAN_KIND_'),
          startTimeUnixNano: nanos(s.startTimeUnixNano),
          endTimeUnixNano: nanos(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          status: {
            code: enumName(status.code, CODES, 'STATUS_CODE_'),
            message: str(status.message),
          },
          links: list(s.links)
            .map(obj)
            .map((l) => ({
              traceId: id(l.traceId),
              spanId: id(l.spanId),
              attributes: attrs(l.attributes),
            })),
          events: list(s.events)
            .map(obj)
            .map((e) => ({
              name: str(e.name),
              timeUnixNano: nanos(e.timeUnixNano),
              attributes: attrs(e.attributes),
            })),
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

function attrs(kvs: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of list(kvs).map(obj)) {
    const key = str(kv.key);
    out[key] = anyValue(kv.value, key);
  }
  return out;
}

// Span attributes can only hold scalars and homogeneous scalar arrays (OTel API),
// so kvlist/bytes/empty values mean something upstream is wrong: fail loudly.
function anyValue(value: unknown, key: string): AttrValue {
  const v = obj(value);
  if ('stringValue' in v) return str(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true;
  if ('intValue' in v) return int64ToNumber(v.intValue, key);
  if ('doubleValue' in v) return Number(v.doubleValue); // JSON may carry "NaN"/"Infinity" strings
  if ('arrayValue' in v) {
    return list(obj(v.arrayValue).values).map((e) => {
      const x = anyValue(e, key);
      if (Array.isArray(x))
        throw new Error(`attribute ${key}: nested arrays are not valid span attributes`);
      return x;
    });
  }
  throw new Error(`attribute ${key}: unsupported AnyValue ${JSON.stringify(value)}`);
}

function int64ToNumber(v: unknown, key: string): number {
  const big = BigInt(typeof v === 'number' ? Math.trunc(v) : str(v));
  const n = Number(big);
  // A silent precision loss would make an equality assertion lie.
  if (!Number.isSafeInteger(n))
    throw new Error(`attribute ${key}: int64 ${big} exceeds Number.MAX_SAFE_INTEGER`);
  return n;
}

function enumName<T extends string>(v: unknown, names: T[], prefix: string): T {
  // protobuf JSON mapping allows enum values as numbers or as their proto names.
  const name =
    typeof v === 'string' && v.startsWith(prefix) ? v.slice(prefix.length) : names[Number(v ?? 0)];
  if (name === undefined || !names.includes(name as T))
    throw new Error(`unknown enum value ${String(v)}`);
  return name as T;
}

function nanos(v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  return BigInt(typeof v === 'number' ? v : str(v));
}

function base64ToHex(v: unknown): string {
  return Buffer.from(str(v), 'base64').toString('hex');
}

function obj(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

// ---- logs ----

export interface DecodedLogRecord {
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: number;
  body: AttrValue;
  attributes: Attributes;
  traceId: string;
  spanId: string;
  flags: number;
  resource: Attributes;
  scope: { name: string; version: string };
}

const LOGS_PKG = 'opentelemetry.proto.collector.logs.v1';

/** Decodes one ExportLogsServiceRequest body. Throws on malformed input. */
export function decodeOtlpLogsRequest(
  body: Uint8Array,
  encoding: OtlpEncoding,
  contentEncoding?: string,
): DecodedLogRecord[] {
  const raw = contentEncoding?.trim().toLowerCase() === 'gzip' ? gunzipSync(body) : body;
  if (encoding === 'json')
    return normalizeLogs(JSON.parse(Buffer.from(raw).toString('utf8')) as unknown, (v) =>
      str(v).toLowerCase(),
    );
  const type = otlpRoot().lookupType(`${LOGS_PKG}.ExportLogsServiceRequest`);
  const obj = type.toObject(type.decode(raw), { longs: String, bytes: String, enums: Number });
  return normalizeLogs(obj, base64ToHex);
}

/** An ExportLogsServiceResponse; with `partial`, its partial_success. */
export function encodeLogsResponse(
  encoding: OtlpEncoding,
  partial?: { rejectedLogRecords: number; errorMessage: string },
): Buffer {
  if (encoding === 'json')
    return Buffer.from(
      partial === undefined
        ? '{}'
        : JSON.stringify({
            partialSuccess: {
              rejectedLogRecords: String(partial.rejectedLogRecords),
              errorMessage: partial.errorMessage,
            },
          }),
    );
  const type = otlpRoot().lookupType(`${LOGS_PKG}.ExportLogsServiceResponse`);
  const message = partial === undefined ? {} : { partialSuccess: partial };
  return Buffer.from(type.encode(type.create(message)).finish());
}

function normalizeLogs(req: unknown, id: (v: unknown) => string): DecodedLogRecord[] {
  const out: DecodedLogRecord[] = [];
  for (const rl of list(obj(req).resourceLogs)) {
    const resource = attrs(obj(obj(rl).resource).attributes);
    for (const sl of list(obj(rl).scopeLogs)) {
      const sc = obj(obj(sl).scope);
      const scope = { name: str(sc.name), version: str(sc.version) };
      for (const r of list(obj(sl).logRecords).map(obj))
        out.push({
          timeUnixNano: nanos(r.timeUnixNano),
          observedTimeUnixNano: nanos(r.observedTimeUnixNano),
          severityNumber: Number(r.severityNumber ?? 0),
          body: anyValue(r.body, 'body'),
          attributes: attrs(r.attributes),
          traceId: id(r.traceId),
          spanId: id(r.spanId),
          flags: Number(r.flags ?? 0),
          resource,
          scope,
        });
    }
  }
  return out;
}
