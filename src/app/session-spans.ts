// One session, read from disk, as spans grouped by turn. Shared by export,
// the benchmarks and (per turn) the daemon.
import { encodeSpanFields, type EncodedSpans } from '../adapters/otlp-protobuf.js';
import { encodeJsonSpans } from '../adapters/otlp-json.js';
import { windowsOf, type PriceTable } from '../core/pricing.js';
import { costSession } from '../core/session-cost.js';
import type { SessionModel } from '../core/session-model.js';
import type { SpanData, SpanOptions } from '../core/span-data.js';
import { buildTurnSpans, countTurnSpans } from '../core/spans.js';
import { sha256Hex, traceIdFor } from '../core/span-ids.js';
import type { SessionFiles } from '../adapters/session-files.js';
import type { ParseOptions } from '../core/parse-record.js';
import { readSession, type SegmentReadOptions, type SessionRead } from './read-session.js';
import type { ReadWarning } from '../core/waterfall-row.js';

export interface TurnSpans {
  /**
   * The turn's trace id; for SpanWork 'count', which only tells turns apart
   * (the same prompt in a resumed or forked file), `trace:<prompt uuid>`, the
   * key the trace id is hashed from.
   */
  traceId: string;
  startTime: number;
  /** Empty when only counted or encoded as OTLP/JSON (SpanWork 'count', 'json'). */
  spans: SpanData[];
  /** How many spans the turn has (also when they were only counted). */
  spanCount: number;
  /**
   * The spans' protobuf fields: hashed for the digest, and what export sends;
   * for SpanWork 'json' their OTLP/JSON span objects (encodeJsonSpans) instead.
   */
  encoded: EncodedSpans;
  /** Hash of the spans' content: a changed turn (it grew, it finished) hashes anew. */
  digest: string;
}

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
 * What `encoded` and `digest` hold when the caller said it needs neither
 * (`encode` false: a dry run or --out with nothing to compare, where
 * encoding and hashing were a tenth of the CPU).
 */
export const NOT_ENCODED: EncodedSpans = { bytes: new Uint8Array(0), ends: new Uint32Array(0) };

/**
 * How much of each turn the caller needs: `encode` the spans, their protobuf
 * fields and digest (to compare, record and send); `spans` the spans alone
 * (--out or a dry run with nothing to compare); `count` only how many there
 * are (a dry run with nothing to compare: building them was ~4 % of its CPU
 * for a number countTurnSpans gives in a tenth of the time); `json` the
 * spans' OTLP/JSON objects alone, the spans dropped (--out with nothing to
 * compare: spans held in a batch until it was full filled the old generation).
 */
export type SpanWork = 'encode' | 'spans' | 'json' | 'count';

/** Spans of the model's turns from `firstTurn` on (a segment's own turns). */
export function spansOfModel(
  model: SessionModel,
  prices: PriceTable,
  options: SpanOptions,
  firstTurn = 0,
  work: SpanWork = 'encode',
): { turns: TurnSpans[]; unknownModels: string[] } {
  // Costs also when only counting: the "no price for model" notes come from them.
  const costs = costSession(model, prices);
  const turns = model.turns.slice(firstTurn).map((turn): TurnSpans => {
    if (work === 'count') {
      const spanCount = countTurnSpans(model, turn.index);
      return {
        // Only told apart from other turns: the prompt uuid does that as its
        // hash does, without hashing (see TurnSpans.traceId).
        traceId: `trace:${turn.promptUuid}`,
        startTime: turn.startTime,
        spans: [],
        spanCount,
        encoded: NOT_ENCODED,
        digest: '',
      };
    }
    const traceId = traceIdFor(turn.promptUuid);
    const spans = buildTurnSpans(model, turn.index, costs, options);
    if (work === 'json')
      return {
        traceId,
        startTime: turn.startTime,
        spans: [],
        spanCount: spans.length,
        encoded: encodeJsonSpans(spans),
        digest: '',
      };
    const encoded = work === 'encode' ? encodeSpanFields(spans) : NOT_ENCODED;
    return {
      traceId,
      startTime: turn.startTime,
      spans,
      spanCount: spans.length,
      encoded,
      digest: work === 'encode' ? digestOfEncoded(encoded) : '',
    };
  });
  return { turns, unknownModels: costs.unknownModels };
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
export class SessionSpansRead {
  private readonly read: SessionRead;
  private readonly unknown = new Set<string>();
  /** Linking warnings are derived per segment, not read: kept after the read ones, as finish() does. */
  private readonly derived: ReadWarning[] = [];

  constructor(
    files: SessionFiles,
    private readonly prices: PriceTable,
    private readonly options: SpanOptions,
    segments: Omit<SegmentReadOptions, 'parse'> = {},
    /** What each turn needs (see SpanWork): less than `encode` gives NOT_ENCODED and an empty digest. */
    private readonly work: SpanWork = 'encode',
  ) {
    this.read = readSession(files, {
      ...segments,
      parse: parseOptionsFor(options),
      windowOf: windowsOf(prices),
    });
  }

  async *turns(): AsyncGenerator<TurnSpans[], void, undefined> {
    for await (const { model, firstTurn } of this.read.segments()) {
      const spans = spansOfModel(model, this.prices, this.options, firstTurn, this.work);
      for (const m of spans.unknownModels) this.unknown.add(m);
      this.derived.push(...(model.derivedWarnings ?? []));
      yield spans.turns;
    }
  }

  summary(): StreamedSession {
    const { read, derived } = this;
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
