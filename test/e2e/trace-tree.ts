// Reads OTLP/JSON as ccotel writes it (`export --out`) and as Jaeger and Tempo return it, into
// one flat span shape, and states the tree every ccotel turn trace must have.
//
// The three producers differ: ccotel and Jaeger's api_v3 write hex ids, Tempo marshals the id
// bytes as base64; enums come as numbers or as STATUS_CODE_* / SPAN_KIND_* names; 64-bit ints
// as numbers or strings; the spans sit under `resourceSpans`, `result.resourceSpans`,
// `trace.resourceSpans` or (older Tempo) `batches`.
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface FlatSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: string;
  readonly status: 'UNSET' | 'OK' | 'ERROR';
  /** '' when there is none. */
  readonly statusMessage: string;
  /** Unix nanoseconds as a decimal string (exact: more digits than a double holds). */
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly FlatLink[];
  readonly events: readonly FlatEvent[];
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export interface FlatLink {
  readonly traceId: string;
  readonly spanId: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

export interface FlatEvent {
  readonly name: string;
  readonly timeUnixNano: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

export const TURN_ROOT_NAME = 'invoke_agent Claude Code';
/** Tool names under which Claude Code starts a sub-agent (Task before 2.1.x renamed it Agent). */
export const SUBAGENT_TOOL_SPAN_NAMES = ['execute_tool Task', 'execute_tool Agent'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function rec(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Lower-case hex for an id given as hex or base64; '' for an absent or all-zero id. */
export function normaliseId(value: unknown, bytes: 8 | 16): string {
  if (typeof value !== 'string' || value === '') return '';
  const hex = new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)
    ? value.toLowerCase()
    : Buffer.from(value, 'base64').toString('hex');
  if (hex.length !== bytes * 2) throw new Error(`not a ${bytes}-byte id: ${value}`);
  return /^0+$/.test(hex) ? '' : hex;
}

function anyValue(value: unknown): AttributeValue {
  const v = rec(value);
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.arrayValue !== undefined) return list(rec(v.arrayValue).values).map(anyValue);
  return null;
}

function attributes(value: unknown): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const kv of list(value)) {
    const key = rec(kv).key;
    if (typeof key === 'string') result[key] = anyValue(rec(kv).value);
  }
  return result;
}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUSES = ['UNSET', 'OK', 'ERROR'] as const;

function kindName(value: unknown): string {
  if (typeof value === 'number') return KINDS[value] ?? String(value);
  if (typeof value === 'string') return value.replace(/^SPAN_KIND_/, '');
  return 'UNSPECIFIED';
}

function statusName(value: unknown): FlatSpan['status'] {
  const code = rec(value).code;
  if (typeof code === 'number') return STATUSES[code] ?? 'UNSET';
  if (typeof code === 'string') {
    const name = code.replace(/^STATUS_CODE_/, '');
    return (STATUSES as readonly string[]).includes(name) ? (name as FlatSpan['status']) : 'UNSET';
  }
  return 'UNSET';
}

/** 64-bit nanoseconds given as a JSON string or number, as an exact decimal string. */
function nanos(value: unknown): string {
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value).toString();
  if (typeof value === 'number' && Number.isFinite(value))
    return BigInt(Math.round(value)).toString();
  return '0';
}

function links(value: unknown): FlatLink[] {
  return list(value).map((link) => ({
    traceId: normaliseId(rec(link).traceId, 16),
    spanId: normaliseId(rec(link).spanId, 8),
    attributes: attributes(rec(link).attributes),
  }));
}

function events(value: unknown): FlatEvent[] {
  return list(value).map((event) => ({
    name: typeof rec(event).name === 'string' ? String(rec(event).name) : '',
    timeUnixNano: nanos(rec(event).timeUnixNano),
    attributes: attributes(rec(event).attributes),
  }));
}

function resourceSpansOf(document: unknown): unknown[] {
  const doc = rec(document);
  for (const candidate of [
    doc.resourceSpans,
    rec(doc.result).resourceSpans,
    rec(doc.trace).resourceSpans,
    doc.batches,
    rec(doc.trace).batches,
  ]) {
    if (Array.isArray(candidate)) return candidate;
  }
  return [];
}

/** All spans of one OTLP/JSON document from ccotel, Jaeger api_v3 or Tempo. */
export function spansFromOtlpJson(document: unknown): FlatSpan[] {
  return resourceSpansOf(document).flatMap((resourceSpans) => {
    const resource = attributes(rec(rec(resourceSpans).resource).attributes);
    const scopes = [
      ...list(rec(resourceSpans).scopeSpans),
      ...list(rec(resourceSpans).instrumentationLibrarySpans),
    ];
    return scopes.flatMap((scope) =>
      list(rec(scope).spans).map((span): FlatSpan => {
        const s = rec(span);
        return {
          traceId: normaliseId(s.traceId, 16),
          spanId: normaliseId(s.spanId, 8),
          parentSpanId: normaliseId(s.parentSpanId, 8),
          name: typeof s.name === 'string' ? s.name : '',
          kind: kindName(s.kind),
          status: statusName(s.status),
          statusMessage:
            typeof rec(s.status).message === 'string' ? String(rec(s.status).message) : '',
          startTimeUnixNano: nanos(s.startTimeUnixNano),
          endTimeUnixNano: nanos(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          links: links(s.links),
          events: events(s.events),
          resource,
        };
      }),
    );
  });
}

/** Spans of an `export --out` file: one ExportTraceServiceRequest JSON per line. */
export async function readExportFile(path: string): Promise<FlatSpan[]> {
  const content = await readFile(path, 'utf8');
  return content
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => spansFromOtlpJson(JSON.parse(line) as unknown));
}

export function groupByTrace(spans: readonly FlatSpan[]): Map<string, FlatSpan[]> {
  const traces = new Map<string, FlatSpan[]>();
  for (const span of spans) {
    const trace = traces.get(span.traceId) ?? [];
    trace.push(span);
    traces.set(span.traceId, trace);
  }
  return traces;
}

/** One line per span, `parent-name > name [status]`, sorted: compares trees, not transports. */
export function treeShape(spans: readonly FlatSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map(
      (s) =>
        `${s.spanId} ${s.parentSpanId === '' ? '(root)' : (byId.get(s.parentSpanId)?.name ?? `(missing ${s.parentSpanId})`)} > ${s.name} [${s.kind}, ${s.status}]`,
    )
    .sort();
}

/**
 * The tree every ccotel turn trace has: exactly one root, `invoke_agent Claude Code`, every other
 * span reachable from it, and the root's tool calls as `execute_tool <tool>` children.
 */
export function expectTurnTrace(traceId: string, spans: readonly FlatSpan[]): void {
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => s.parentSpanId === '');
  expect(
    roots.map((r) => r.name),
    `roots of trace ${traceId}`,
  ).toEqual([TURN_ROOT_NAME]);
  const orphans = spans.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId));
  expect(
    orphans.map((s) => s.name),
    `spans of trace ${traceId} whose parent is missing`,
  ).toEqual([]);
  const root = roots[0];
  expect(root?.attributes['gen_ai.operation.name']).toBe('invoke_agent');
  expect(root?.resource['service.name']).toBe('claude-code');
}

/** Sub-agent spans (`invoke_agent <type>` other than the turn root) with their parent span. */
export function subagentSpans(
  spans: readonly FlatSpan[],
): { span: FlatSpan; parent: FlatSpan | undefined }[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .filter((s) => s.name.startsWith('invoke_agent ') && s.name !== TURN_ROOT_NAME)
    .map((span) => ({ span, parent: byId.get(span.parentSpanId) }));
}

/**
 * How a backend may legitimately alter what it stores; the default is "not at all". Each
 * allowance is one documented rewrite of the backend, applied to the expected span, so anything
 * else that differs still fails.
 */
export interface SpanComparison {
  /** Compare string values (attributes, resource) by this many leading characters only. */
  readonly stringPrefix?: number;
  /**
   * Jaeger's write-time sanitizer (internal/jptrace/sanitizer/negative_duration_santizer.go):
   * a span whose end is not after its start is stored with end = start + 1 ns and an
   * `@jaeger@warnings` attribute saying so. ccotel writes zero-length spans where a transcript
   * gives one timestamp for both ends.
   */
  readonly jaegerDurationSanitizer?: boolean;
  /**
   * Jaeger's v1 span model (Badger and the other v1 stores) keeps a link as a FOLLOWS_FROM
   * reference: the link's own attributes are lost and come back as
   * `opentracing.ref_type: follows_from`.
   */
  readonly linksAsJaegerReferences?: boolean;
}

const JAEGER_WARNINGS = '@jaeger@warnings';

/** The span as the backend is documented to store it (see SpanComparison). */
function asStored(span: FlatSpan, options: SpanComparison): FlatSpan {
  let stored = span;
  if (
    options.jaegerDurationSanitizer === true &&
    BigInt(span.endTimeUnixNano) <= BigInt(span.startTimeUnixNano)
  ) {
    stored = {
      ...stored,
      endTimeUnixNano: (BigInt(span.startTimeUnixNano) + 1n).toString(),
      attributes: {
        ...stored.attributes,
        [JAEGER_WARNINGS]: [expect.stringMatching(/^Negative duration detected/) as string],
      },
    };
  }
  if (options.linksAsJaegerReferences === true) {
    stored = {
      ...stored,
      links: stored.links.map((link) => ({
        ...link,
        attributes: { 'opentracing.ref_type': 'follows_from' },
      })),
    };
  }
  return stored;
}

function comparableValues(
  values: Readonly<Record<string, AttributeValue>>,
  prefix: number | undefined,
): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const key of Object.keys(values).sort()) {
    const value = values[key] ?? null;
    result[key] =
      typeof value === 'string' && prefix !== undefined ? value.slice(0, prefix) : value;
  }
  return result;
}

/** A span as compared across the wire: every field, attribute maps in key order. */
export function comparableSpan(span: FlatSpan, options: SpanComparison = {}): unknown {
  const values = (v: Readonly<Record<string, AttributeValue>>): Record<string, AttributeValue> =>
    comparableValues(v, options.stringPrefix);
  return {
    ...span,
    attributes: values(span.attributes),
    resource: values(span.resource),
    links: span.links.map((link) => ({ ...link, attributes: values(link.attributes) })),
    events: span.events.map((event) => ({ ...event, attributes: values(event.attributes) })),
  };
}

/**
 * What a backend returned equals what ccotel wrote, span for span: ids, parent, name, kind, times,
 * status code and message, every attribute, links, events and the resource. Each span is its own
 * assertion, so a failure names the span and shows only its differences.
 */
export function expectSameSpans(
  label: string,
  got: readonly FlatSpan[],
  expected: readonly FlatSpan[],
  options: SpanComparison = {},
): void {
  const ids = (spans: readonly FlatSpan[]): string[] => spans.map((s) => s.spanId).sort();
  expect(ids(got), `${label}: span ids`).toEqual(ids(expected));
  const byId = new Map(got.map((span) => [span.spanId, span]));
  for (const span of expected) {
    const twin = byId.get(span.spanId);
    expect(
      twin === undefined ? undefined : comparableSpan(twin, options),
      `${label}: ${span.name} (${span.spanId})`,
    ).toEqual(comparableSpan(asStored(span, options), options));
  }
}
