// What the collector's answer to one request means for its batch. The sink
// answers in parts (contiguous ranges of the batch, each accepted, rejected or
// too large); what no part covers was not answered and is sent again. Pure.
import type { SpanData } from '../../../core/spans/data.js';
import type { SinkPart } from '../../deliver/span-sink.js';

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
