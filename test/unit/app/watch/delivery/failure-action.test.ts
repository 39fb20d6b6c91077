// The delivery queue's pure parts: what a failed request means for its batch,
// and how an answer in parts splits a batch (no sink, no clock).
import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../../../../src/adapters/otlp/http-sender.js';
import { sortAnswers } from '../../../../../src/app/watch/delivery/answers.js';
import {
  failureAction,
  nextBackoffMs,
} from '../../../../../src/app/watch/delivery/failure-action.js';
import { testSpan as span } from '../../../../support/test-span.js';

const failure = (status: number, retryable: boolean): AttemptFailure => ({
  status,
  retryable,
  message: `HTTP ${status}`,
  retryAfterMs: null,
});

describe('failureAction', () => {
  it('gives the spans back when stopping, whatever the failure', () => {
    expect(failureAction(failure(400, false), true)).toBe('return');
    expect(failureAction(failure(503, true), true)).toBe('return');
  });

  it('refuses a batch the collector calls bad (400)', () => {
    expect(failureAction(failure(400, false), false)).toBe('refuse');
  });

  it('gives up on a retryable failure (the sink used its budget up)', () => {
    expect(failureAction(failure(0, true), false)).toBe('give-up');
    expect(failureAction(failure(503, true), false)).toBe('give-up');
  });

  it('backs off on a configuration failure (401, 403, 404)', () => {
    for (const status of [401, 403, 404])
      expect(failureAction(failure(status, false), false)).toBe('back-off');
  });

  it('doubles the backoff up to its cap', () => {
    expect(nextBackoffMs(1000, 30_000)).toBe(2000);
    expect(nextBackoffMs(16_000, 30_000)).toBe(30_000);
    expect(nextBackoffMs(30_000, 30_000)).toBe(30_000);
  });
});

describe('sortAnswers', () => {
  const batch = { items: ['a', 'b', 'c', 'd'], spans: ['1', '2', '3', '4'].map(span), events: [] };

  it('sorts answered items by outcome and keeps the unanswered tail', () => {
    const answers = sortAnswers(batch, [
      { from: 0, to: 1, outcome: 'accepted' },
      { from: 1, to: 2, outcome: 'too-large', spanId: '2', bytes: 9 },
      { from: 2, to: 3, outcome: 'accepted' },
    ]);
    expect(answers.answered).toBe(3);
    expect(answers.accepted).toEqual(['a', 'c']);
    expect(answers.refused).toEqual(['b']);
    expect(answers.rest.items).toEqual(['d']);
    expect(answers.rest.spans.map((s) => s.spanId)).toEqual([span('4').spanId]);
  });

  it('an answer without parts answers nothing: the whole batch is the rest', () => {
    const answers = sortAnswers(batch, []);
    expect(answers.answered).toBe(0);
    expect(answers.accepted).toEqual([]);
    expect(answers.refused).toEqual([]);
    expect(answers.rest.items).toEqual(batch.items);
  });

  it('a partial_success rejection refuses its whole range', () => {
    const answers = sortAnswers(batch, [
      { from: 0, to: 4, outcome: 'rejected', rejectedSpans: 1, errorMessage: 'quota' },
    ]);
    expect(answers.refused).toEqual(['a', 'b', 'c', 'd']);
    expect(answers.rest.items).toEqual([]);
  });
});
