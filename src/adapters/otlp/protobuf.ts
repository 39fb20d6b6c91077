// Direct protobuf encoding of OTLP trace requests from SpanData
// (opentelemetry/proto trace/v1, common/v1), byte-identical to the SDK's
// ProtobufTraceSerializer: test/unit/adapters/otlp/encode.fast-path.test.ts checks it on
// every fixture. Written here because the SDK path builds a ReadableSpan per
// span, sizes the request in a first pass and encodes every attribute key anew,
// which made encoding a quarter of conversion time (docs/benchmarks.md).
import type { Resource } from '@opentelemetry/resources';
import type { AttributeValue, SpanData } from '../../core/spans/data.js';
import { hr, SCOPE } from './scope.js';

/** Scratch space, reused across calls; the request is copied out at the end. */
let buf = new Uint8Array(1 << 20);
let view = new DataView(buf.buffer);
let pos = 0;

function ensure(extra: number): void {
  if (pos + extra <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + extra) size *= 2;
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, pos));
  buf = next;
  view = new DataView(buf.buffer);
}

const varintSize = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

/** The SDK writer's varint: unsigned 32-bit fast path, else 64-bit two's complement. */
function writeVarint(value: number): void {
  ensure(10);
  if (value >= 0 && value <= 0xffffffff) {
    let v = value >>> 0;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    return;
  }
  let low: number;
  let high: number;
  if (value >= 0) {
    low = value >>> 0;
    high = (value / 0x100000000) >>> 0;
  } else {
    const abs = Math.abs(value);
    low = ~(abs >>> 0) >>> 0;
    high = ~((abs / 0x100000000) >>> 0) >>> 0;
    low = (low + 1) >>> 0;
    if (low === 0) high = (high + 1) >>> 0;
  }
  while (high > 0 || low > 0x7f) {
    buf[pos++] = (low & 0x7f) | 0x80;
    low = ((low >>> 7) | (high << 25)) >>> 0;
    high >>>= 7;
  }
  buf[pos++] = low & 0x7f;
}

const tag = (field: number, wire: number): void => writeVarint((field << 3) | wire);

/** Opens a length-delimited field: reserves `reserve` bytes for its length. */
function open(reserve: number): number {
  ensure(reserve);
  const at = pos;
  pos += reserve;
  return at;
}

/** Writes the length reserved at `at`, moving the content if its varint is not `reserve` bytes. */
function close(at: number, reserve: number): void {
  const start = at + reserve;
  const length = pos - start;
  const size = varintSize(length);
  if (size !== reserve) {
    ensure(size - reserve);
    buf.copyWithin(at + size, start, pos);
    pos += size - reserve;
  }
  let v = length;
  let w = at;
  while (v > 0x7f) {
    buf[w++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[w] = v;
}

function writeString(text: string): void {
  const n = text.length;
  ensure(n + 5);
  // One pass for the common ASCII case: copy while checking, rewind on the first wide character.
  const start = pos;
  writeVarint(n);
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c > 127) {
      pos = start;
      writeUtf8(text);
      return;
    }
    b[p++] = c;
  }
  pos = p;
}

function writeUtf8(text: string): void {
  // TextEncoder (the SDK's) and Buffer agree: lone surrogates become U+FFFD.
  const bytes = Buffer.from(text, 'utf8');
  writeVarint(bytes.length);
  ensure(bytes.length);
  buf.set(bytes, pos);
  pos += bytes.length;
}

const hexValue = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c - 55;

/** The SDK's hexToBinary, written in place as a bytes field. */
function writeHexBytes(hex: string): void {
  const n = Math.floor(hex.length / 2);
  ensure(n + 5);
  writeVarint(n);
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i += 1)
    b[p++] = (hexValue(hex.charCodeAt(2 * i)) << 4) | hexValue(hex.charCodeAt(2 * i + 1));
  pos = p;
}

function writeFixed32(v: number): void {
  ensure(4);
  view.setUint32(pos, v >>> 0, true);
  pos += 4;
}

/** HrTime as fixed64 nanoseconds, with the SDK's split arithmetic (exact past 2^53). */
function writeTime(ms: number): void {
  const [seconds, nanos] = hr(ms);
  const lowerSeconds = seconds & 0xffff;
  const upperSeconds = (seconds / 0x10000) >>> 0;
  const fromLower = lowerSeconds * 1_000_000_000;
  const fromUpper = upperSeconds * 1_000_000_000;
  const lowWithCarry = (fromLower >>> 0) + (((fromUpper & 0xffff) * 0x10000) >>> 0) + nanos;
  const high =
    (Math.floor(fromLower / 0x100000000) +
      ((fromUpper / 0x10000) >>> 0) +
      Math.floor(lowWithCarry / 0x100000000)) >>>
    0;
  ensure(8);
  view.setUint32(pos, lowWithCarry >>> 0, true);
  view.setUint32(pos + 4, high, true);
  pos += 8;
}

const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

function writeAnyValue(value: unknown): void {
  if (typeof value === 'string') {
    tag(1, 2);
    writeString(value);
  } else if (typeof value === 'boolean') {
    tag(2, 0);
    writeVarint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
      tag(3, 0);
      writeVarint(value);
    } else {
      tag(4, 1);
      ensure(8);
      view.setFloat64(pos, value, true);
      pos += 8;
    }
  } else if (value instanceof Uint8Array) {
    tag(7, 2);
    writeVarint(value.length);
    ensure(value.length);
    buf.set(value, pos);
    pos += value.length;
  } else if (Array.isArray(value)) {
    tag(5, 2);
    const array = open(1);
    for (const item of value) {
      tag(1, 2);
      const at = open(1);
      writeAnyValue(item);
      close(at, 1);
    }
    close(array, 1);
  } else if (typeof value === 'object' && value !== null) {
    tag(6, 2);
    const list = open(1);
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      tag(1, 2);
      const kv = open(1);
      writeKeyValue(key, (value as Record<string, unknown>)[key]);
      close(kv, 1);
    }
    close(list, 1);
  }
}

/** Attribute keys repeat on every span: their KeyValue.key field, encoded once. */
const keyFields = new Map<string, Uint8Array>();

function keyField(key: string): Uint8Array {
  let field = keyFields.get(key);
  if (field === undefined) {
    const bytes = Buffer.from(key, 'utf8');
    field = new Uint8Array(1 + varintSize(bytes.length) + bytes.length);
    field[0] = 0x0a; // KeyValue.key: field 1, length-delimited
    let i = 1;
    let v = bytes.length;
    while (v > 0x7f) {
      field[i++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    field[i++] = v;
    field.set(bytes, i);
    if (keyFields.size < 10_000) keyFields.set(key, field);
  }
  return field;
}

function writeKeyValue(key: string, value: unknown): void {
  const field = keyField(key);
  ensure(field.length);
  const b = buf;
  let p = pos;
  for (let i = 0; i < field.length; i += 1) b[p++] = field[i] as number;
  pos = p;
  tag(2, 2);
  const at = open(1);
  writeAnyValue(value);
  close(at, 1);
}

function writeAttributes(
  attributes: Record<string, AttributeValue> | Record<string, unknown>,
  field: number,
): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    tag(field, 2);
    const at = open(1);
    writeKeyValue(key, attributes[key]);
    close(at, 1);
  }
}

/**
 * Per span attribute key, the value it had on the span before and, once a
 * value came twice in a row, its whole encoded Span.attributes field: most of
 * a span's attributes repeat those of the span before (session and
 * conversation ids, models, agent and tool types, zero counts), and copying
 * the field skips the key, the value's encoding and the length fix-ups.
 * Primitives only: an array or object could change under the same reference.
 */
interface RepeatedAttribute {
  value: unknown;
  field: Uint8Array | null;
}
const repeated = new Map<string, RepeatedAttribute>();

const isPrimitive = (v: unknown): boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function copyBytes(bytes: Uint8Array): void {
  ensure(bytes.length);
  if (bytes.length > 48) {
    buf.set(bytes, pos);
    pos += bytes.length;
    return;
  }
  const b = buf;
  let p = pos;
  for (let i = 0; i < bytes.length; i += 1) b[p++] = bytes[i] as number;
  pos = p;
}

/** Span.attributes (field 9): writeAttributes(attributes, 9), a repeated attribute copied whole. */
function writeSpanAttributes(attributes: Record<string, AttributeValue>): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    const value = attributes[key];
    const seen = repeated.get(key);
    if (seen !== undefined && seen.field !== null && seen.value === value) {
      copyBytes(seen.field);
      continue;
    }
    const start = pos;
    tag(9, 2);
    const at = open(1);
    writeKeyValue(key, value);
    close(at, 1);
    if (seen === undefined) {
      if (repeated.size < 10_000) repeated.set(key, { value, field: null });
    } else if (seen.value === value && isPrimitive(value)) seen.field = buf.slice(start, pos);
    else {
      seen.value = value;
      seen.field = null;
    }
  }
}

/** span_flags: TraceFlags.SAMPLED (1) with CONTEXT_HAS_IS_REMOTE set and IS_REMOTE clear. */
const SPAN_FLAGS = 0x101;
/** SpanKind + 1 (the proto reserves 0 for "unspecified"): INTERNAL is 0, CLIENT 2. */
const KIND = { INTERNAL: 1, CLIENT: 3 } as const;
const STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** An id field as written last: a turn's spans share the trace id, and siblings their parent. */
interface IdField {
  hex: string;
  field: Uint8Array;
}
const lastTrace: IdField = { hex: '', field: new Uint8Array(0) };
const lastParent: IdField = { hex: '', field: new Uint8Array(0) };

/** Field `field` holding the id `hex` as bytes, copied when it is the one written last. */
function writeIdField(field: number, hex: string, last: IdField): void {
  if (hex === last.hex) return copyBytes(last.field);
  const start = pos;
  tag(field, 2);
  writeHexBytes(hex);
  last.hex = hex;
  last.field = buf.slice(start, pos);
}

function writeSpan(span: SpanData): void {
  writeIdField(1, span.traceId, lastTrace);
  tag(2, 2);
  writeHexBytes(span.spanId);
  if (span.parentSpanId !== null && span.parentSpanId !== '')
    writeIdField(4, span.parentSpanId, lastParent);
  tag(5, 2);
  writeString(span.name);
  tag(6, 0);
  writeVarint(KIND[span.kind]);
  tag(7, 1);
  writeTime(span.startMs);
  tag(8, 1);
  writeTime(Math.max(span.startMs, span.endMs));
  writeSpanAttributes(span.attributes);
  tag(10, 0);
  writeVarint(0);
  tag(12, 0);
  writeVarint(0);
  for (const link of span.links) {
    tag(13, 2);
    const at = open(1);
    tag(1, 2);
    writeHexBytes(link.traceId);
    tag(2, 2);
    writeHexBytes(link.spanId);
    writeAttributes(link.attributes, 4);
    tag(5, 0);
    writeVarint(0);
    tag(6, 5);
    writeFixed32(SPAN_FLAGS);
    close(at, 1);
  }
  tag(14, 0);
  writeVarint(0);
  tag(15, 2);
  const status = open(1);
  if (span.status.message) {
    tag(2, 2);
    writeString(span.status.message);
  }
  tag(3, 0);
  writeVarint(STATUS_CODE[span.status.code]);
  close(status, 1);
  tag(16, 5);
  writeFixed32(SPAN_FLAGS);
}

function writeResource(resource: Resource): void {
  tag(1, 2);
  const at = open(1);
  writeAttributes(resource.attributes, 1);
  tag(2, 0);
  writeVarint(0);
  close(at, 1);
}

function writeScope(): void {
  tag(1, 2);
  const at = open(1);
  tag(1, 2);
  writeString(SCOPE.name);
  if (SCOPE.version) {
    tag(2, 2);
    writeString(SCOPE.version);
  }
  close(at, 1);
}

/** All spans share one resource and one scope: one ResourceSpans holding one ScopeSpans. */
export function encodeProtobuf(spans: SpanData[], resource: Resource): Uint8Array {
  if (spans.length === 0) return new Uint8Array(0);
  pos = 0;
  tag(1, 2);
  const resourceSpans = open(3);
  writeResource(resource);
  tag(2, 2);
  const scopeSpans = open(3);
  writeScope();
  for (const span of spans) {
    tag(2, 2);
    const at = open(2);
    writeSpan(span);
    close(at, 2);
  }
  if (SCOPE.schemaUrl) {
    tag(3, 2);
    writeString(SCOPE.schemaUrl);
  }
  close(scopeSpans, 3);
  if (resource.schemaUrl) {
    tag(3, 2);
    writeString(resource.schemaUrl);
  }
  close(resourceSpans, 3);
  return buf.slice(0, pos);
}

// ---- Encoding in pieces: spans on one thread, requests on another ----

/**
 * Spans encoded as ScopeSpans.spans fields (tag, length, Span), back to back.
 * Span i occupies [ends[i - 1] ?? 0, ends[i]). A worker thread can encode a
 * session's spans and hand the bytes over (transferable); the sender then
 * assembles requests of any split without touching a span again.
 */
export interface EncodedSpans {
  bytes: Uint8Array;
  /** Typed, so that a worker hands it over with the bytes instead of cloning it. */
  ends: Uint32Array;
}

export function encodeSpanFields(spans: SpanData[]): EncodedSpans {
  pos = 0;
  const ends: number[] = [];
  for (const span of spans) {
    tag(2, 2);
    const at = open(2);
    writeSpan(span);
    close(at, 2);
    ends.push(pos);
  }
  return { bytes: buf.slice(0, pos), ends: Uint32Array.from(ends) };
}

/** Spans [from, to) of an EncodedSpans. */
export interface SpanRange {
  encoded: EncodedSpans;
  from: number;
  to: number;
}

const rangeStart = (r: SpanRange): number =>
  r.from === 0 ? 0 : (r.encoded.ends[r.from - 1] as number);
const rangeEnd = (r: SpanRange): number => (r.to === 0 ? 0 : (r.encoded.ends[r.to - 1] as number));

/** Resource and scope fields, encoded once per resource. */
const headers = new WeakMap<
  Resource,
  { resource: Uint8Array; scope: Uint8Array; scopeTail: Uint8Array; resourceTail: Uint8Array }
>();

function headersOf(resource: Resource) {
  let h = headers.get(resource);
  if (h === undefined) {
    const piece = (write: () => void): Uint8Array => {
      pos = 0;
      write();
      return buf.slice(0, pos);
    };
    h = {
      resource: piece(() => writeResource(resource)),
      scope: piece(writeScope),
      scopeTail: piece(() => {
        if (SCOPE.schemaUrl) {
          tag(3, 2);
          writeString(SCOPE.schemaUrl);
        }
      }),
      resourceTail: piece(() => {
        if (resource.schemaUrl) {
          tag(3, 2);
          writeString(resource.schemaUrl);
        }
      }),
    };
    headers.set(resource, h);
  }
  return h;
}

function varintBytes(v: number, out: Uint8Array, at: number): number {
  let w = at;
  while (v > 0x7f) {
    out[w++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[w++] = v;
  return w;
}

/**
 * Memory a sender assembles its requests in, one after another. A fresh
 * request per batch lived
 * outside V8's heap until a full collection found it dead, and stayed the
 * largest share of export's external memory at its peak RSS.
 */
export class RequestBuffer {
  bytes = new Uint8Array(0);
}

/**
 * One ExportTraceServiceRequest of the given span ranges: the bytes encodeSpans
 * gives for those spans. With `into`, written in its memory (grown as needed):
 * the request is valid until the next assembly into the same buffer.
 */
export function assembleRequest(
  ranges: SpanRange[],
  resource: Resource,
  into?: RequestBuffer,
): Uint8Array {
  let spanBytes = 0;
  for (const r of ranges) spanBytes += rangeEnd(r) - rangeStart(r);
  if (spanBytes === 0) return new Uint8Array(0);
  const h = headersOf(resource);
  const scopeSpans = h.scope.length + spanBytes + h.scopeTail.length;
  const resourceSpans =
    h.resource.length + 1 + varintSize(scopeSpans) + scopeSpans + h.resourceTail.length;
  const size = 1 + varintSize(resourceSpans) + resourceSpans;
  const out = into === undefined ? new Uint8Array(size) : room(into, size);
  out[0] = 0x0a; // ExportTraceServiceRequest.resource_spans
  let w = varintBytes(resourceSpans, out, 1);
  out.set(h.resource, w);
  w += h.resource.length;
  out[w++] = 0x12; // ResourceSpans.scope_spans
  w = varintBytes(scopeSpans, out, w);
  out.set(h.scope, w);
  w += h.scope.length;
  for (const r of ranges) {
    const piece = r.encoded.bytes.subarray(rangeStart(r), rangeEnd(r));
    out.set(piece, w);
    w += piece.length;
  }
  out.set(h.scopeTail, w);
  w += h.scopeTail.length;
  out.set(h.resourceTail, w);
  return out;
}

/** `size` bytes of the buffer's memory, grown to twice what is asked when short. */
function room(into: RequestBuffer, size: number): Uint8Array {
  if (into.bytes.length < size) into.bytes = new Uint8Array(size * 2);
  return into.bytes.subarray(0, size);
}

/** How many spans the ranges hold. */
export function spanCountOf(ranges: SpanRange[]): number {
  let count = 0;
  for (const r of ranges) count += r.to - r.from;
  return count;
}

/** Spans [from, to) of all the ranges' spans, counted across them: the ranges that hold just those. */
export function rangesOf(ranges: SpanRange[], from: number, to: number): SpanRange[] {
  const out: SpanRange[] = [];
  let first = 0;
  for (const r of ranges) {
    const n = r.to - r.from;
    const lo = Math.max(from, first);
    const hi = Math.min(to, first + n);
    if (lo < hi)
      out.push({ encoded: r.encoded, from: r.from + lo - first, to: r.from + hi - first });
    first += n;
  }
  return out;
}

/** Reads a varint of `bytes` at `at`: [value, next]. Lengths here stay far below 2^31. */
function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const b = bytes[i++] ?? 0;
    value |= (b & 0x7f) << shift;
    if (b < 0x80) return [value >>> 0, i];
    shift += 7;
  }
}

/**
 * The span id (hex) of span `index` of the ranges, read back from its fields
 * (writeSpan writes trace_id, then span_id, first): what a sink handed no
 * SpanData names a span by.
 */
export function spanIdOf(ranges: SpanRange[], index: number): string {
  const [r] = rangesOf(ranges, index, index + 1);
  if (r === undefined) return '?';
  const bytes = r.encoded.bytes;
  let at = rangeStart(r);
  at = readVarint(bytes, at)[1]; // ScopeSpans.spans tag
  at = readVarint(bytes, at)[1]; // the Span's length
  for (let field = 0; field < 2; field += 1) {
    const [key, afterKey] = readVarint(bytes, at);
    const [length, start] = readVarint(bytes, afterKey);
    if (key === 0x12) return Buffer.from(bytes.subarray(start, start + length)).toString('hex');
    at = start + length;
  }
  return '?';
}
