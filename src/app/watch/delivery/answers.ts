// The collector's answer to one request: what it means for the batch (the
// sink answers in parts, contiguous ranges each accepted, rejected or too
// large; what no part covers was not answered and is sent again; the batch's
// events, after its spans, get one verdict for them all), and acting
// on it: the outage (if any) is over, refusals are logged per episode, and the
// answered spans go back to their sessions as accepted or refused before the
// rest of the batch is sent again.
import type { SpanData } from '../../../core/spans/data.js';
import type { LogRecordData } from '../../../core/events/log-record.js';
import type { ResourceVariant } from '../../../core/spans/native/native-resource.js';
import type { EventsResult, SinkPart } from '../../deliver/span-sink.js';
import type { OutageLog } from '../../deliver/outage-log.js';
import type { RejectionLog } from './rejection-log.js';

/** Items of the spans first, in order, then of the events (Claude Code's schema), in order. */
export interface Batch<T> {
  items: T[];
  spans: SpanData[];
  events: LogRecordData[];
  /** Claude Code's schema: the one resource variant of the batch's sessions. */
  variant?: ResourceVariant;
}

export interface SortedAnswers<T> {
  /** How many items, from the start of the batch, the parts cover. */
  answered: number;
  accepted: T[];
  /** Rejected (partial_success) or too large even alone: never retried. */
  refused: T[];
  /** The unanswered tail, to send again. */
  rest: Batch<T>;
}

export function sortAnswers<T>(
  batch: Batch<T>,
  parts: SinkPart[],
  events?: EventsResult,
): SortedAnswers<T> {
  const spanCount = batch.spans.length;
  const answeredSpans = parts[parts.length - 1]?.to ?? 0;
  const accepted: T[] = [];
  const refused: T[] = [];
  for (const part of parts)
    (part.outcome === 'accepted' ? accepted : refused).push(
      ...batch.items.slice(part.from, part.to),
    );
  const eventItems = batch.items.slice(spanCount);
  const restSpans = batch.items.slice(answeredSpans, spanCount);
  // The events' verdict: all accepted, or (a partial_success names no record) all refused.
  if (events?.ok === true) {
    (events.rejected > 0 ? refused : accepted).push(...eventItems);
    const rest = {
      ...batch,
      items: restSpans,
      spans: batch.spans.slice(answeredSpans),
      events: [],
    };
    return { answered: answeredSpans + eventItems.length, accepted, refused, rest };
  }
  const rest = {
    ...batch,
    items: [...restSpans, ...eventItems],
    spans: batch.spans.slice(answeredSpans),
  };
  return { answered: answeredSpans, accepted, refused, rest };
}

export interface AnswerHandlers<T> {
  /** The collector accepted these; resolves once that is durable. */
  onAccepted(items: T[]): Promise<void>;
  /** Refused for good: not retried. */
  onRefused(items: T[]): Promise<void>;
}

export type AnswerSettler<T> = (
  batch: Batch<T>,
  parts: SinkPart[],
  events?: EventsResult,
) => Promise<Batch<T>>;

/** Acknowledges what the collector answered for; the settler returns the rest of the batch. */
export function createAnswerSettler<T>(
  handlers: AnswerHandlers<T>,
  outage: OutageLog,
  rejections: RejectionLog,
): AnswerSettler<T> {
  return async (batch, parts, events) => {
    const answers = sortAnswers(batch, parts, events);
    if (answers.answered === 0) return batch;
    outage.end();
    rejections.note(parts);
    rejections.noteEvents(events);
    if (answers.accepted.length > 0) await handlers.onAccepted(answers.accepted);
    if (answers.refused.length > 0) await handlers.onRefused(answers.refused);
    return answers.rest;
  };
}
