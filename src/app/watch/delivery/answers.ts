// The collector's answer to one request: what it means for the batch (the
// sink answers in parts, contiguous ranges each accepted, rejected or too
// large; what no part covers was not answered and is sent again), and acting
// on it: the outage (if any) is over, refusals are logged per episode, and the
// answered spans go back to their sessions as accepted or refused before the
// rest of the batch is sent again.
import type { SpanData } from '../../../core/spans/data.js';
import type { SinkPart } from '../../deliver/span-sink.js';
import type { OutageLog } from '../../deliver/outage-log.js';
import type { RejectionLog } from './rejection-log.js';

export interface Batch<T> {
  items: T[];
  spans: SpanData[];
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

export function sortAnswers<T>(batch: Batch<T>, parts: SinkPart[]): SortedAnswers<T> {
  const answered = parts[parts.length - 1]?.to ?? 0;
  const accepted: T[] = [];
  const refused: T[] = [];
  for (const part of parts)
    (part.outcome === 'accepted' ? accepted : refused).push(
      ...batch.items.slice(part.from, part.to),
    );
  const rest = { items: batch.items.slice(answered), spans: batch.spans.slice(answered) };
  return { answered, accepted, refused, rest };
}

export interface AnswerHandlers<T> {
  /** The collector accepted these; resolves once that is durable. */
  onAccepted(items: T[]): Promise<void>;
  /** Refused for good: not retried. */
  onRefused(items: T[]): Promise<void>;
}

export type AnswerSettler<T> = (batch: Batch<T>, parts: SinkPart[]) => Promise<Batch<T>>;

/** Acknowledges what the collector answered for; the settler returns the rest of the batch. */
export function createAnswerSettler<T>(
  handlers: AnswerHandlers<T>,
  outage: OutageLog,
  rejections: RejectionLog,
): AnswerSettler<T> {
  return async (batch, parts) => {
    const answers = sortAnswers(batch, parts);
    if (answers.answered === 0) return batch;
    outage.end();
    rejections.note(parts);
    if (answers.accepted.length > 0) await handlers.onAccepted(answers.accepted);
    if (answers.refused.length > 0) await handlers.onRefused(answers.refused);
    return answers.rest;
  };
}
