// One session, read from disk, as spans grouped by turn. Shared by export,
// the benchmarks and (per turn) the daemon.
import { encodeSpanFields, type EncodedSpans } from '../../adapters/otlp/protobuf.js';
import { encodeJsonSpans } from '../../adapters/otlp/json.js';
import { windowsOf, type PriceTable } from '../../core/cost/pricing.js';
import { costSession, type SessionCosts } from '../../core/cost/session-cost.js';
import { addSegmentCost, costStateWarning } from '../../core/cost/cost-state.js';
import type { SessionModel } from '../../core/model/session-model.js';
import type { SpanData, SpanOptions } from '../../core/spans/data.js';
import { buildTurnSpans, countTurnSpans } from '../../core/spans/build.js';
import { nativeTraceIdFor, sha256Hex, traceIdFor } from '../../core/spans/ids.js';
import { buildTurnEvents } from '../../core/events/native-events.js';
import type { LogRecordData } from '../../core/events/log-record.js';
import {
  resourceVariantOf,
  type ResourceVariant,
} from '../../core/spans/native/native-resource.js';
import type { SessionFiles } from '../../adapters/files/session-files.js';
import type { ParseOptions } from '../../core/transcript/parse-record.js';
import { readSession, type SegmentReadOptions, type SessionRead } from './read-session.js';
import type { ReadWarning } from '../../core/view/waterfall-row.js';
import type { SinkForm } from '../deliver/span-batch.js';

interface TurnHead {
  startTime: number;
  /** How many spans the turn has (also when they were only counted). */
  spanCount: number;
  /** Its events (Claude Code's schema only; none in GenAI's): sent with its spans. */
  events: LogRecordData[];
  /** Its session's resource (Claude Code's schema only). */
  variant?: ResourceVariant;
}

interface TracedTurn extends TurnHead {
  traceId: string;
  /**
   * Hash of the spans' content (digestOf): a changed turn (it grew, it
   * finished) hashes anew. Null when the caller did not ask for it (TurnNeed).
   */
  digest: string | null;
}

/** Built, encoded as protobuf span fields and hashed: to compare, record and send. */
export interface ProtobufTurn extends TracedTurn {
  form: 'protobuf';
  spans: SpanData[];
  /** The spans' protobuf fields: hashed for the digest, and what a protobuf sink sends. */
  encoded: EncodedSpans;
  digest: string;
}

/** Built spans, for a sink that encodes them itself. */
export interface BuiltTurn extends TracedTurn {
  form: 'spans';
  spans: SpanData[];
}

/** The spans' OTLP/JSON span objects (encodeJsonSpans), the spans dropped as they are built. */
export interface JsonTurn extends TracedTurn {
  form: 'json';
  json: EncodedSpans;
}

/** Only counted, no span built. */
export interface CountedTurn extends TurnHead {
  form: 'count';
  /**
   * Tells the turn apart from others (the same prompt in a resumed or forked
   * file) as its trace id would, without hashing: `trace:<prompt uuid>`, the
   * key the trace id is hashed from.
   */
  key: string;
  digest: null;
}

export type TurnSpans = ProtobufTurn | BuiltTurn | JsonTurn | CountedTurn;

/**
 * What each turn must carry: the form of the sink it goes to, and whether
 * its digest is needed (to compare with the state file or record it).
 */
export interface TurnNeed<F extends SinkForm = SinkForm> {
  form: F;
  digest: boolean;
}

/** The turns built for a sink of form F; counting with a digest builds the spans to hash them. */
export type TurnFor<F extends SinkForm> = F extends 'protobuf'
  ? ProtobufTurn
  : F extends 'spans'
    ? BuiltTurn
    : F extends 'json'
      ? JsonTurn
      : CountedTurn | BuiltTurn;

/** Every field, hashed: what sessionSpans and the benches read. */
export const ENCODE_ALL: TurnNeed<'protobuf'> = { form: 'protobuf', digest: true };

/** What tells turns apart: the trace id, or the key it is hashed from when only counted. */
export const keyOfTurn = (turn: TurnSpans): string =>
  turn.form === 'count' ? turn.key : turn.traceId;

/** Text kept per field while parsing: enough for labels, or for full content capture. */
export function textLimitFor(options: SpanOptions): number {
  return options.content === 'full' ? Math.max(1024, options.maxAttributeBytes) : 1024;
}

/** How to parse for spans of these options: tool output and assistant text only for full capture. */
export function parseOptionsFor(options: SpanOptions): ParseOptions {
  return { textLimit: textLimitFor(options), keepTexts: options.content === 'full' };
}

/**
 * SHA-256 of the spans' OTLP protobuf encoding: every field that is sent, and
 * a span's completeness with it (an unfinished span carries
 * claude_code.incomplete). Hashing the JSON text instead cost a fifth of the
 * conversion's CPU: the stringify, then UTF-8 conversion of the string, slow
 * for the many turns whose text holds a character beyond Latin-1.
 */
export function digestOf(spans: SpanData[]): string {
  return digestOfEncoded(encodeSpanFields(spans));
}

const digestOfEncoded = (encoded: EncodedSpans): string => sha256Hex(encoded.bytes).slice(0, 32);

/**
 * One protobuf encoding of a turn's spans, hashed whole (digestOf, what the
 * export state records) and span by span (each span's own bytes, its range
 * in `ends`: what watch tells a changed span by), so that a rebuilt turn is
 * encoded once for both.
 */
export function turnDigests(spans: SpanData[]): { digest: string; spanDigests: string[] } {
  const encoded = encodeSpanFields(spans);
  const { bytes, ends } = encoded;
  const spanDigests: string[] = [];
  let start = 0;
  for (const end of ends) {
    spanDigests.push(sha256Hex(bytes.subarray(start, end)).slice(0, 16));
    start = end;
  }
  return { digest: digestOfEncoded(encoded), spanDigests };
}

interface TurnInput {
  model: SessionModel;
  turn: SessionModel['turns'][number];
  costs: ReturnType<typeof costSession>;
  options: SpanOptions;
}

const build = (t: TurnInput): SpanData[] =>
  buildTurnSpans(t.model, t.turn.index, t.costs, t.options);

const NO_EVENTS: LogRecordData[] = [];

/** A turn's events: Claude Code's schema has them, GenAI's has none. */
export const eventsOfTurn = (
  model: SessionModel,
  index: number,
  costs: SessionCosts,
  options: SpanOptions,
): LogRecordData[] =>
  options.schema === 'claude-code' ? buildTurnEvents(model, index, costs, options) : NO_EVENTS;

const eventsOf = (t: TurnInput): LogRecordData[] =>
  eventsOfTurn(t.model, t.turn.index, t.costs, t.options);

/** What the daemon tells a changed event by. */
export const eventDigest = (event: LogRecordData): string =>
  sha256Hex(JSON.stringify(event)).slice(0, 16);

/** The trace id of a turn in the schema of the options. */
export const traceIdOfTurn = (options: SpanOptions, promptUuid: string): string =>
  options.schema === 'claude-code' ? nativeTraceIdFor(promptUuid) : traceIdFor(promptUuid);

/** Claude Code's schema carries each session's resource (native-resource.ts). */
const variantOf = (t: TurnInput): { variant?: ResourceVariant } =>
  t.options.schema === 'claude-code' ? { variant: resourceVariantOf(t.turn) } : {};

/**
 * A turn's digest, its events in it when it has any (a changed event sends
 * the turn again): hashed from each event's own digest, which the daemon
 * keeps per event, so each event is stringified once either way.
 */
export function withEvents(spanDigest: string, eventDigests: string[]): string {
  if (eventDigests.length === 0) return spanDigest;
  return sha256Hex(`${spanDigest}:${eventDigests.join(',')}`).slice(0, 32);
}

const withEventsOf = (spanDigest: string, events: LogRecordData[]): string =>
  events.length === 0 ? spanDigest : withEvents(spanDigest, events.map(eventDigest));

function builtTurn(t: TurnInput, digest: boolean): BuiltTurn {
  const spans = build(t);
  const events = eventsOf(t);
  const traceId = traceIdOfTurn(t.options, t.turn.promptUuid);
  const hash = digest ? withEventsOf(digestOf(spans), events) : null;
  return {
    form: 'spans',
    traceId,
    startTime: t.turn.startTime,
    spans,
    spanCount: spans.length,
    events,
    ...variantOf(t),
    digest: hash,
  };
}

/** How a turn is built for each form: only what its sink, and the digest, need. */
const TURN_BUILDERS: { [F in SinkForm]: (t: TurnInput, digest: boolean) => TurnFor<F> } = {
  protobuf(t) {
    const spans = build(t);
    const encoded = encodeSpanFields(spans);
    const events = eventsOf(t);
    return {
      form: 'protobuf',
      traceId: traceIdOfTurn(t.options, t.turn.promptUuid),
      startTime: t.turn.startTime,
      spans,
      spanCount: spans.length,
      events,
      ...variantOf(t),
      encoded,
      digest: withEventsOf(digestOfEncoded(encoded), events),
    };
  },
  spans: builtTurn,
  json(t, digest) {
    const { spans, ...rest } = builtTurn(t, digest);
    return { ...rest, form: 'json', json: encodeJsonSpans(spans) };
  },
  // Counting alone builds no span: countTurnSpans gives the number in a
  // fraction of the time, and the prompt uuid tells turns apart as its hash does.
  count: (t, digest) =>
    digest || t.options.schema === 'claude-code'
      ? builtTurn(t, digest)
      : {
          form: 'count',
          key: `trace:${t.turn.promptUuid}`,
          startTime: t.turn.startTime,
          spanCount: countTurnSpans(t.model, t.turn.index),
          events: NO_EVENTS,
          digest: null,
        },
};

/** Spans of the model's turns from `firstTurn` on (a segment's own turns), in the form `need` asks. */
export function spansOfModel(
  model: SessionModel,
  prices: PriceTable,
  options: SpanOptions,
  firstTurn?: number,
): { turns: ProtobufTurn[]; unknownModels: string[]; costs: SessionCosts };
export function spansOfModel<F extends SinkForm>(
  model: SessionModel,
  prices: PriceTable,
  options: SpanOptions,
  firstTurn: number,
  need: TurnNeed<F>,
): { turns: TurnFor<F>[]; unknownModels: string[]; costs: SessionCosts };
export function spansOfModel<F extends SinkForm>(
  model: SessionModel,
  prices: PriceTable,
  options: SpanOptions,
  firstTurn = 0,
  need: TurnNeed<F> = ENCODE_ALL as TurnNeed<F>,
): { turns: TurnFor<F>[]; unknownModels: string[]; costs: SessionCosts } {
  // Costs also when only counting: the "no price for model" notes come from them.
  const costs = costSession(model, prices);
  const builder = TURN_BUILDERS[need.form];
  const turns = model.turns
    .slice(firstTurn)
    .map((turn) => builder({ model, turn, costs, options }, need.digest));
  return { turns, unknownModels: costs.unknownModels, costs };
}

export interface StreamedSession {
  unknownModels: string[];
  unterminated: string[];
  warnings: ReadWarning[];
  ignoredLines: number;
  segments: number;
  forcedCuts: number;
  lateAgents: number;
}

/**
 * One session's spans, a segment of turns at a time (read-session.ts), so
 * that a transcript of any size converts in bounded memory: the caller pulls
 * each segment's turns with `for await (… of read.turns())`, hands them on,
 * and may stop pulling; summary() tells what was read. Reading and sending
 * stay separate steps. The same spans as the whole session's, turn for turn.
 */
export class SessionSpansRead<F extends SinkForm = 'protobuf'> {
  private readonly read: SessionRead;
  private readonly unknown = new Set<string>();
  /** Linking warnings are derived per segment, not read: kept after the read ones, as finish() does. */
  private readonly derived: ReadWarning[] = [];
  /** ccotel's own cost of the segments read, for the cost-state comparison. */
  private ownCost: number | null = null;

  constructor(
    files: SessionFiles,
    private readonly prices: PriceTable,
    private readonly options: SpanOptions,
    segments: Omit<SegmentReadOptions, 'parse'> = {},
    /** What each turn needs (TurnNeed): by default every field, hashed. */
    private readonly need: TurnNeed<F> = ENCODE_ALL as TurnNeed<F>,
  ) {
    this.read = readSession(files, {
      ...segments,
      parse: parseOptionsFor(options),
      windowOf: windowsOf(prices),
    });
  }

  async *turns(): AsyncGenerator<TurnFor<F>[], void, undefined> {
    for await (const { model, firstTurn } of this.read.segments()) {
      const spans = spansOfModel(model, this.prices, this.options, firstTurn, this.need);
      for (const m of spans.unknownModels) this.unknown.add(m);
      this.derived.push(...(model.derivedWarnings ?? []));
      this.ownCost = addSegmentCost(this.ownCost, model, spans.costs.byResponse);
      yield spans.turns;
    }
  }

  summary(): StreamedSession {
    const { read } = this;
    const costWarning = costStateWarning(read.state.costState, this.ownCost);
    const derived = costWarning === null ? this.derived : [...this.derived, costWarning];
    return {
      unknownModels: [...this.unknown].sort(),
      unterminated: read.unterminated,
      warnings: derived.length === 0 ? read.state.warnings : [...read.state.warnings, ...derived],
      ignoredLines: read.state.ignoredLines,
      segments: read.segmentCount,
      forcedCuts: read.forcedCuts,
      lateAgents: read.lateAgents,
    };
  }
}
