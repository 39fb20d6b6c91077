// Acting on the collector's answer to one request: the outage (if any) is
// over, refusals are logged per episode, and the answered spans go back to
// their sessions as accepted or refused before the rest of the batch is sent
// again.
import type { SinkPart } from '../../deliver/span-sink.js';
import { sortAnswers, type Batch } from './batch-answers.js';
import type { OutageLog } from '../../deliver/outage-log.js';
import type { RejectionLog } from './rejection-log.js';

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
