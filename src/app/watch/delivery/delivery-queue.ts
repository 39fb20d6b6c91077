// Sends ready spans in batches (≤ maxBatchSpans), one request at a time, as
// soon as they appear (a few ms of linger to batch spans that complete
// together). Nothing is dropped while the collector is away: the sender
// retries with backoff (capped at 30 s) until it answers, and spans completing
// meanwhile wait in their sessions' outboxes. The outage is logged once when it
// starts and once when it ends, never per span or per attempt; so is an
// episode of partial_success rejections. Rejected spans are not retried (the
// OTLP spec says not to): their turns stay unrecorded, so a later
// `ccotel export` resends them whole.
//
// The parts: drain-loop (when to send), failure-action (what a failed request
// means), answers, ../outage-log and rejection-log (what
// an answer means, logged once per episode), and a backoff wait that a stop ends early.
import type { Clock } from '../../../core/clock.js';
import type { AttemptFailure } from '../../../adapters/otlp/http-sender.js';
import type { Logger } from '../../../adapters/logger.js';
import {
  encodeSpanFields,
  type EncodedSpans,
  type SpanRange,
} from '../../../adapters/otlp/encode.js';
import { encodeJsonSpans } from '../../../adapters/otlp/json.js';
import type { RetryPolicy, SinkResult, SpanSink } from '../../deliver/span-sink.js';
import { createAnswerSettler, type AnswerSettler } from './answers.js';
import type { Batch } from './answers.js';
import { DrainLoop } from './drain-loop.js';
import { failureAction, nextBackoffMs } from './failure-action.js';
import { outageLogOf, type OutageLog } from '../../deliver/outage-log.js';
import { RejectionLog } from './rejection-log.js';

export interface DeliveryQueueOptions<T> {
  /** Builds the sink with the queue's retry policy (it reports retries for outage logging). */
  makeSink(policy: RetryPolicy): SpanSink;
  log: Logger;
  /** The linger, the backoff between attempts and the outage's length. */
  clock: Clock;
  /** Attempts after the first per batch; Infinity for the daemon, a few for --once. */
  maxRetries: number;
  maxBackoffMs: number;
  lingerMs: number;
  /** Spans per request (the maxBatchSpans setting). */
  maxBatchSpans: number;
  /** Next spans to send, at most max. */
  pull(max: number): Batch<T>;
  /** The collector accepted the batch; resolves once that is durable. */
  onAccepted(items: T[]): Promise<void>;
  /** Refused for good (400, partial_success rejections, a span too large alone): not retried. */
  onRefused(items: T[]): Promise<void>;
  /** Not delivered (stopping, or retries used up): back to the sessions. */
  onReturned(items: T[]): void;
}

export interface DeliveryQueue {
  /** Something became ready: send soon. */
  kick(): void;
  /** Resolves when nothing is being sent and the last pull came back empty. */
  whenIdle(): Promise<void>;
  readonly busy: boolean;
  /** Set once --once retries were used up. */
  readonly gaveUp: boolean;
  /** Stops retrying: an in-flight request is abandoned and its spans returned. */
  abort(): void;
}

/** What one batch's delivery works with, besides the sink. */
interface DeliveryParts<T> {
  options: DeliveryQueueOptions<T>;
  controller: AbortController;
  outage: OutageLog;
  settleParts: AnswerSettler<T>;
  /** Set once --once retries were used up. */
  status: { gaveUp: boolean };
}

export function createDeliveryQueue<T>(options: DeliveryQueueOptions<T>): DeliveryQueue {
  const { log, clock } = options;
  const controller = new AbortController();
  const outage = outageLogOf(log, clock);
  const sink = options.makeSink({
    maxRetries: options.maxRetries,
    maxBackoffMs: options.maxBackoffMs,
    signal: controller.signal,
    onRetry: (failure, delayMs) => outage.start(failure, delayMs),
  });
  const settleParts = createAnswerSettler(options, outage, new RejectionLog(log));
  const status = { gaveUp: false };
  const deliver = batchDelivery(sink, { options, controller, outage, settleParts, status });
  const loop = new DrainLoop({
    clock,
    lingerMs: options.lingerMs,
    log,
    signal: controller.signal,
    halted: () => status.gaveUp,
    sendNext() {
      const batch = options.pull(options.maxBatchSpans);
      return batch.items.length === 0 ? null : deliver(batch);
    },
  });
  return {
    kick: () => loop.kick(),
    whenIdle: () => loop.whenIdle(),
    get busy() {
      return loop.busy;
    },
    get gaveUp() {
      return status.gaveUp;
    },
    abort() {
      controller.abort();
      loop.cancel();
    },
  };
}

/** Sends one batch until every span is accepted, refused, or we stop. */
function batchDelivery<T>(
  sink: SpanSink,
  parts: DeliveryParts<T>,
): (whole: Batch<T>) => Promise<void> {
  const { options, controller, outage, settleParts, status } = parts;
  const { log, clock } = options;
  return async function deliver(whole: Batch<T>): Promise<void> {
    let backoff = 1000;
    let batch = whole;
    for (;;) {
      const result = await sendBatch(sink, batch);
      batch = await settleParts(batch, result.parts, result.events);
      if (result.ok || batch.items.length === 0) return;
      const failure = result.failure as AttemptFailure;
      const action = failureAction(failure, controller.signal.aborted);
      if (action === 'return') return options.onReturned(batch.items);
      if (action === 'refuse') {
        log.error('collector refused spans; they will not be retried', {
          error: failure.message,
          spans: batch.spans.length,
        });
        await options.onRefused(batch.items);
        return;
      }
      if (action === 'give-up') {
        // Only with a finite retry budget (--once): give the spans back for the next run.
        status.gaveUp = true;
        outage.start(failure, null);
        return options.onReturned(batch.items);
      }
      // 401, 403, 404…: a configuration problem someone may fix; keep trying, slowly.
      outage.start(failure, backoff);
      await abortableSleep(clock, backoff, controller.signal);
      backoff = nextBackoffMs(backoff, options.maxBackoffMs);
    }
  };
}

/** The spans in the form the sink takes, and the events (none: no field). */
function sendBatch<T>(sink: SpanSink, batch: Batch<T>): Promise<SinkResult> {
  const { spans } = batch;
  const events = {
    ...(batch.events.length === 0 ? {} : { events: batch.events }),
    ...(batch.variant === undefined ? {} : { variant: batch.variant }),
  };
  switch (sink.form) {
    case 'spans':
      return sink.send({ form: 'spans', spans, ...events });
    case 'protobuf':
      return sink.send({
        form: 'protobuf',
        ranges: [wholeRange(encodeSpanFields(spans))],
        ...events,
      });
    case 'json':
      return sink.send({ form: 'json', ranges: [wholeRange(encodeJsonSpans(spans))], ...events });
    case 'count':
      return sink.send({ form: 'count', count: spans.length, ...events });
  }
}

const wholeRange = (encoded: EncodedSpans): SpanRange => ({
  encoded,
  from: 0,
  to: encoded.ends.length,
});

/** Waits `ms` on the clock, or until the signal aborts: a backoff must not hold up a stop. */
const abortableSleep = (clock: Clock, ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = clock.setTimer(ms, done);
    function done(): void {
      timer.cancel();
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
