// Direct OTLP/JSON encoding of trace requests from SpanData: the bytes the
// SDK's JsonTraceSerializer gives (same keys, order, omissions, number and
// time forms, escapes), written straight into a reused buffer. The SDK builds
// a ReadableSpan per span, then an OTLP object tree, stringifies it and
// encodes it to UTF-8 (and `export --out` decoded those bytes back into a
// string to write them). A first version that built the text by string
// concatenation was no faster: turning the concatenated string into bytes
// cost what building it had saved (docs/benchmarks.md, History).
// test/unit/adapters/otlp/json.test.ts holds the two byte-identical.
import type { Resource } from '@opentelemetry/resources';
import type { SpanData } from '../../core/spans/data.js';
import type { EncodedSpans, SpanRange } from './protobuf.js';
import { hr, SCOPE } from './scope.js';

/** span flags: TraceFlags.SAMPLED with CONTEXT_HAS_IS_REMOTE set and IS_REMOTE clear. */
const SPAN_FLAGS = 0x101;
const STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;
/** SpanKind + 1: the proto reserves 0 for "unspecified". */
const KIND = { INTERNAL: 1, CLIENT: 3 } as const;

/** Scratch space, reused across calls; the request is copied out at the end. */
let buf = Buffer.allocUnsafe(1 << 20);
let pos = 0;

function ensure(extra: number): void {
  if (pos + extra <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + extra) size *= 2;
  const next = Buffer.allocUnsafe(size);
  buf.copy(next, 0, 0, pos);
  buf = next;
}

/** ASCII text (punctuation, digits, keys already escaped). */
function raw(text: string): void {
  const n = text.length;
  ensure(n);
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i += 1) b[p++] = text.charCodeAt(i);
  pos = p;
}

/** One ASCII character, by its code. */
function byte(code: number): void {
  ensure(1);
  buf[pos++] = code;
}

const COMMA = 0x2c;

/** Pre-encoded bytes. */
function bytes(piece: Uint8Array): void {
  const n = piece.length;
  ensure(n);
  // A cached attribute (key, value and all) or a key's prefix is long enough
  // for one native copy: from 25 bytes on it beat the loop, and by far at 160.
  if (n > 24) {
    buf.set(piece, pos);
    pos += n;
    return;
  }
  const b = buf;
  let p = pos;
  for (let i = 0; i < n; i += 1) b[p++] = piece[i] as number;
  pos = p;
}

/**
 * A JSON string literal, as JSON.stringify writes it. Printable ASCII without
 * quote or backslash is copied as is; anything else goes through
 * JSON.stringify (escapes, lone surrogates as \uXXXX) and UTF-8.
 */
function str(text: string): void {
  const n = text.length;
  if (n >= LONG_STRING) {
    longStr(text);
    return;
  }
  ensure(n + 2);
  const b = buf;
  let p = pos;
  b[p++] = 0x22;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      escaped(text);
      return;
    }
    b[p++] = c;
  }
  b[p++] = 0x22;
  pos = p;
}

/** From this length on, one regex test and one native write beat the loop. */
const LONG_STRING = 16;
/** Any character JSON.stringify would not copy as it is (in one byte). */
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

function longStr(text: string): void {
  if (NEEDS_ESCAPE.test(text)) {
    escaped(text);
    return;
  }
  ensure(text.length + 2);
  buf[pos++] = 0x22;
  pos += buf.write(text, pos, 'latin1');
  buf[pos++] = 0x22;
}

/** JSON.stringify's literal (escapes, lone surrogates as \uXXXX) in UTF-8. */
function escaped(text: string): void {
  const literal = JSON.stringify(text);
  // UTF-8 takes at most 3 bytes per UTF-16 unit; JSON.stringify leaves no lone surrogate.
  ensure(3 * literal.length);
  pos += buf.write(literal, pos, 'utf8');
}

/** A copy of what was written since `start` (Buffer's own slice() would be a view). */
const copyOut = (start: number): Uint8Array => new Uint8Array(buf.subarray(start, pos));

/** A finite number as JSON writes it; NaN and ±Infinity become null, as in JSON.stringify. */
function num(n: number): void {
  if (n >= 0 && n <= Number.MAX_SAFE_INTEGER && Number.isInteger(n)) digits(n);
  else raw(Number.isFinite(n) ? String(n) : 'null');
}

/**
 * A non-negative safe integer's decimal digits (what String(n) gives, without
 * the string). Above 2^31 (every millisecond time) it goes in two parts, so
 * that each digit comes from int32 arithmetic: `%` on a double is a call to
 * fmod, which made this loop a sixth of the writer's time.
 */
function digits(n: number): void {
  if (n < 0x80000000) {
    smallDigits(n, 0);
    return;
  }
  let high = Math.floor(n / 1e9);
  // Exact in doubles (both below 2^53); the division's rounding is set right here.
  let low = n - high * 1e9;
  if (low < 0) {
    high -= 1;
    low += 1e9;
  } else if (low >= 1e9) {
    high += 1;
    low -= 1e9;
  }
  smallDigits(high, 0);
  smallDigits(low, 9);
}

/** Digits of 0 <= n < 2^31, left-padded with zeros to `width`. */
function smallDigits(n: number, width: number): void {
  let length = 1;
  for (let rest = n; rest >= 10; rest = (rest / 10) | 0) length += 1;
  if (length < width) length = width;
  ensure(length);
  const b = buf;
  let p = pos + length;
  let rest = n;
  for (let i = 0; i < length; i += 1) {
    const next = (rest / 10) | 0;
    b[--p] = 0x30 + rest - next * 10;
    rest = next;
  }
  pos += length;
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/**
 * Attribute keys repeat on every span: their `{"key":…,"value":` prefix is
 * encoded once, with the value's type tag for the usual strings and
 * integers. Many values repeat too (the session id, the model, the
 * operation, a zero count), though not always twice in a row: a chat span's
 * operation alternates with its call's. Each key keeps its last few
 * primitive values, and for one that comes again the whole encoded
 * attribute, copied from then on.
 */
interface KeyEntry {
  /** `{"key":…,"value":` */
  prefix: Uint8Array;
  /** The same with `{"stringValue":` and `{"intValue":` after it. */
  stringPrefix: Uint8Array;
  intPrefix: Uint8Array;
  /** Recent primitive values of the key, at most VALUE_SLOTS. */
  values: unknown[];
  /** The whole `{"key":…,"value":…}` of values[i], once it has come twice; else null. */
  wholes: (Uint8Array | null)[];
  /** Where the search for a slot to replace starts (round robin). */
  next: number;
}

const VALUE_SLOTS = 4;
const keyEntries = new Map<string, KeyEntry>();

function keyEntry(key: string): KeyEntry {
  let entry = keyEntries.get(key);
  if (entry === undefined) {
    const prefix = `{"key":${JSON.stringify(key)},"value":`;
    entry = {
      prefix: utf8(prefix),
      stringPrefix: utf8(`${prefix}{"stringValue":`),
      intPrefix: utf8(`${prefix}{"intValue":`),
      values: [],
      wholes: [],
      next: 0,
    };
    if (keyEntries.size < 10_000) keyEntries.set(key, entry);
  }
  return entry;
}

/** `}}`: the end of an attribute's value and of the attribute. */
function close2(): void {
  ensure(2);
  buf[pos] = 0x7d;
  buf[pos + 1] = 0x7d;
  pos += 2;
}

/** The attribute written in full: what a cached one copies. */
function writeAttribute(entry: KeyEntry, value: unknown): void {
  if (typeof value === 'string') {
    bytes(entry.stringPrefix);
    str(value);
    close2();
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    bytes(entry.intPrefix);
    num(value);
    close2();
  } else {
    bytes(entry.prefix);
    anyValue(value);
    raw('}');
  }
}

/** Remembers a primitive value just written, in a free slot, one seen only once, or round robin. */
function remember(entry: KeyEntry, value: unknown): void {
  const { values, wholes } = entry;
  if (values.length < VALUE_SLOTS) {
    values.push(value);
    wholes.push(null);
    return;
  }
  // Searched from `next` on, so that new values take turns among the slots
  // seen once: two that alternate amid one-off values both stay to be cached.
  let slot = entry.next;
  for (let k = 0; k < VALUE_SLOTS; k += 1) {
    const i = (entry.next + k) % VALUE_SLOTS;
    if (wholes[i] === null) {
      slot = i;
      break;
    }
  }
  values[slot] = value;
  wholes[slot] = null;
  entry.next = (slot + 1) % VALUE_SLOTS;
}

/** One attribute, from its key's cached bytes when the value came before. */
function attribute(key: string, value: unknown): void {
  const entry = keyEntry(key);
  // Primitives only: an array or object is a new one on every span.
  if (typeof value === 'object') {
    writeAttribute(entry, value);
    return;
  }
  const values = entry.values;
  for (let i = 0; i < values.length; i += 1) {
    if (values[i] !== value) continue;
    const whole = entry.wholes[i];
    if (whole !== null && whole !== undefined) {
      bytes(whole);
      return;
    }
    const start = pos;
    writeAttribute(entry, value);
    entry.wholes[i] = copyOut(start);
    return;
  }
  writeAttribute(entry, value);
  remember(entry, value);
}

/** The SDK's toAnyValue, as JSON. */
function anyValue(value: unknown): void {
  switch (typeof value) {
    case 'string':
      raw('{"stringValue":');
      str(value);
      raw('}');
      return;
    case 'number':
      raw(Number.isInteger(value) ? '{"intValue":' : '{"doubleValue":');
      num(value);
      raw('}');
      return;
    case 'boolean':
      raw(value ? '{"boolValue":true}' : '{"boolValue":false}');
      return;
    default:
      break;
  }
  if (value instanceof Uint8Array) {
    raw(`{"bytesValue":"${Buffer.from(value).toString('base64')}"}`);
  } else if (Array.isArray(value)) {
    raw('{"arrayValue":{"values":[');
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) byte(COMMA);
      anyValue(value[i]);
    }
    raw(']}}');
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    raw('{"kvlistValue":{"values":[');
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i] as string;
      if (i > 0) byte(COMMA);
      raw('{"key":');
      str(key);
      raw(',"value":');
      anyValue(record[key]);
      raw('}');
    }
    raw(']}}');
  } else raw('{}');
}

/** The SDK's toAttributes: a KeyValue per own key, in Object.keys order. */
function attributes(values: Record<string, unknown>): void {
  const keys = Object.keys(values);
  byte(0x5b);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    if (i > 0) byte(COMMA);
    attribute(key, values[key]);
  }
  byte(0x5d);
}

/**
 * Unix ms as the SDK's nanosecond string (hrTimeToNanos of hr(ms)). Digits
 * are joined directly in the usual case; BigInt where a carry or a sign
 * would make that wrong.
 */
function nanos(ms: number): void {
  // Whole milliseconds from 1 s on (every transcript time): the ms digits and
  // six zeros are the seconds, the zero-padded nanos, without hr()'s pair.
  if (ms >= 1000 && Number.isSafeInteger(ms)) {
    byte(0x22);
    digits(ms);
    raw('000000"');
    return;
  }
  const [seconds, ns] = hr(ms);
  if (seconds > 0 && ns >= 0 && ns < 1e9 && Number.isSafeInteger(seconds))
    raw(`"${seconds}${String(ns).padStart(9, '0')}"`);
  else raw(`"${BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(ns))}"`);
}

/** The constant text around the kind and the status code, one string per value. */
const KIND_FIELD = {
  INTERNAL: utf8(`,"kind":${KIND.INTERNAL},"startTimeUnixNano":`),
  CLIENT: utf8(`,"kind":${KIND.CLIENT},"startTimeUnixNano":`),
} as const;
const statusField = (code: number): Uint8Array =>
  utf8(`,"droppedAttributesCount":0,"events":[],"droppedEventsCount":0,"status":{"code":${code}`);
/** What follows the status of a span without links, in one piece. */
const NO_LINKS_END = utf8(`},"links":[],"droppedLinksCount":0,"flags":${SPAN_FLAGS}}`);
const STATUS_FIELD = {
  UNSET: statusField(STATUS_CODE.UNSET),
  OK: statusField(STATUS_CODE.OK),
  ERROR: statusField(STATUS_CODE.ERROR),
} as const;

/** The spans of a request come a turn at a time: one trace id, encoded once for them all. */
let lastTraceId = '';
let lastTraceIdBytes: Uint8Array = new Uint8Array(0);

function traceId(id: string): void {
  if (id !== lastTraceId) {
    const start = pos;
    str(id);
    lastTraceId = id;
    lastTraceIdBytes = copyOut(start);
    return;
  }
  bytes(lastTraceIdBytes);
}

function span(s: SpanData): void {
  raw('{"traceId":');
  traceId(s.traceId);
  raw(',"spanId":');
  str(s.spanId);
  // The SDK omits an empty parent id, as the protobuf writer does.
  if (s.parentSpanId !== null && s.parentSpanId !== '') {
    raw(',"parentSpanId":');
    str(s.parentSpanId);
  }
  raw(',"name":');
  str(s.name);
  bytes(KIND_FIELD[s.kind]);
  nanos(s.startMs);
  raw(',"endTimeUnixNano":');
  nanos(Math.max(s.startMs, s.endMs));
  raw(',"attributes":');
  attributes(s.attributes);
  bytes(STATUS_FIELD[s.status.code]);
  if (s.status.message !== undefined) {
    raw(',"message":');
    str(s.status.message);
  }
  if (s.links.length === 0) {
    bytes(NO_LINKS_END);
    return;
  }
  raw('},"links":[');
  for (let i = 0; i < s.links.length; i += 1) {
    const link = s.links[i] as SpanData['links'][number];
    if (i > 0) byte(COMMA);
    raw('{"attributes":');
    attributes(link.attributes);
    raw(',"spanId":');
    str(link.spanId);
    raw(',"traceId":');
    str(link.traceId);
    raw(`,"droppedAttributesCount":0,"flags":${SPAN_FLAGS}}`);
  }
  raw(`],"droppedLinksCount":0,"flags":${SPAN_FLAGS}}`);
}

/** What comes before and after the spans, encoded once per resource. */
const frames = new WeakMap<Resource, { head: Uint8Array; tail: Uint8Array }>();

function frameOf(resource: Resource): { head: Uint8Array; tail: Uint8Array } {
  let frame = frames.get(resource);
  if (frame === undefined) {
    const schema = resource.schemaUrl ? `,"schemaUrl":${JSON.stringify(resource.schemaUrl)}` : '';
    const scope =
      `{"name":${JSON.stringify(SCOPE.name)}` +
      (SCOPE.version === undefined ? '' : `,"version":${JSON.stringify(SCOPE.version)}`) +
      '}';
    pos = 0;
    attributes(resource.attributes);
    const resourceAttributes = buf.toString('utf8', 0, pos);
    frame = {
      head: utf8(
        `{"resourceSpans":[{"resource":{"attributes":${resourceAttributes},"droppedAttributesCount":0${schema}}` +
          `,"scopeSpans":[{"scope":${scope},"spans":[`,
      ),
      tail: utf8(
        ']' +
          (SCOPE.schemaUrl === undefined ? '' : `,"schemaUrl":${JSON.stringify(SCOPE.schemaUrl)}`) +
          `}]${schema}}]}`,
      ),
    };
    frames.set(resource, frame);
  }
  return frame;
}

const EMPTY = '{"resourceSpans":[]}';

/** Writes the request into the scratch buffer; `newline` ends it with one. */
function writeRequest(spans: SpanData[], resource: Resource, newline: boolean): void {
  if (spans.length === 0) {
    pos = 0;
    raw(EMPTY);
  } else {
    const frame = frameOf(resource);
    pos = 0;
    bytes(frame.head);
    for (let i = 0; i < spans.length; i += 1) {
      if (i > 0) byte(COMMA);
      span(spans[i] as SpanData);
    }
    bytes(frame.tail);
  }
  if (newline) raw('\n');
}

/** One ExportTraceServiceRequest holding `spans` (one resource, one scope): what JsonTraceSerializer returns. */
export function encodeJson(spans: SpanData[], resource: Resource): Uint8Array {
  writeRequest(spans, resource, false);
  return new Uint8Array(buf.subarray(0, pos));
}

/** The same request and a newline: one line of an OTLP/JSON lines file. */
export function encodeJsonLine(spans: SpanData[], resource: Resource): Uint8Array {
  return new Uint8Array(jsonLineView(spans, resource));
}

/**
 * encodeJsonLine's bytes as a view of the scratch buffer, valid only until the
 * next call of any function here: what `export --out` writes, awaiting each
 * write before it encodes the next request. A copy of every line was garbage
 * outside the heap that V8 let pile up before it collected, and part of the
 * peak RSS.
 */
export function jsonLineView(spans: SpanData[], resource: Resource): Uint8Array {
  writeRequest(spans, resource, true);
  return buf.subarray(0, pos);
}

/**
 * A turn's spans as OTLP/JSON span objects, comma-separated, and where each
 * ends: the pieces jsonLineOfRanges() puts requests together from. `--out`
 * encodes each turn as it is built, so that its spans die young instead of
 * waiting in a batch of 512 until it is full; held there, they outlived
 * young collections and filled the old generation.
 */
export function encodeJsonSpans(spans: SpanData[]): EncodedSpans {
  pos = 0;
  const ends = new Uint32Array(spans.length);
  for (let i = 0; i < spans.length; i += 1) {
    if (i > 0) byte(COMMA);
    span(spans[i] as SpanData);
    ends[i] = pos;
  }
  return { bytes: new Uint8Array(buf.subarray(0, pos)), ends };
}

/**
 * Where jsonLineOfRanges puts a line together: not the scratch buffer, which
 * the next turns are encoded into while the line is being written.
 */
let lineBuf = Buffer.allocUnsafe(1 << 20);
let linePos = 0;

function lineBytes(piece: Uint8Array): void {
  if (linePos + piece.length > lineBuf.length) {
    let size = lineBuf.length * 2;
    while (size < linePos + piece.length) size *= 2;
    const next = Buffer.allocUnsafe(size);
    lineBuf.copy(next, 0, 0, linePos);
    lineBuf = next;
  }
  lineBuf.set(piece, linePos);
  linePos += piece.length;
}

const COMMA_BYTES = Uint8Array.of(COMMA);
const NEWLINE_BYTES = Uint8Array.of(0x0a);

/**
 * jsonLineView's bytes for the spans of `ranges` (each a part of one turn's
 * encodeJsonSpans), in order: the same line, put together from the pieces.
 * A view valid until the next call of this function.
 */
export function jsonLineOfRanges(ranges: SpanRange[], resource: Resource): Uint8Array {
  let count = 0;
  for (const r of ranges) count += Math.max(0, r.to - r.from);
  if (count === 0) return new Uint8Array(jsonLineView([], resource));
  const frame = frameOf(resource);
  linePos = 0;
  lineBytes(frame.head);
  let first = true;
  for (const r of ranges) {
    if (r.to <= r.from) continue;
    const { bytes: text, ends } = r.encoded;
    // Each span but the first of the turn has the comma before it.
    const start = r.from === 0 ? 0 : (ends[r.from - 1] as number) + 1;
    const end = ends[r.to - 1] as number;
    if (!first) lineBytes(COMMA_BYTES);
    first = false;
    lineBytes(text.subarray(start, end));
  }
  lineBytes(frame.tail);
  lineBytes(NEWLINE_BYTES);
  return lineBuf.subarray(0, linePos);
}
