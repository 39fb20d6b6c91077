// Sends ready spans in batches (≤ maxBatchSpans), one request at a time, as
// soon as they appear (a few ms of linger to batch spans that complete
// together). Nothing is dropped while the collector is away: the sender
// retries with backoff (capped at 30 s) until it answers, and spans completing
// meanwhile wait in their sessions' outboxes. The outage is logged once when it
// starts and once when it ends, never per span or per attempt; so is an
// episode of partial_success rejections. Rejected spans are not retried (the
// OTLP spec says not to): their turns stay unrecorded, so a later
// `ccotel export` resends them whole.
import type { Clock, Timer } from '../../core/clock.js';
import type { AttemptFailure } from '../../adapters/otlp-http-sender.js';
import type { Logger } from '../../adapters/logger.js';
import type { SpanData } from '../../core/span-data.js';
import type { RetryPolicy, SinkPart, SpanSink } from '../span-sink.js';

export interface Batch<T> {
  items: T[];
  spans: SpanData[];
}

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

/** Waits `ms` on the clock, or until the signal aborts. */
const sleep = (clock: Clock, ms: number, signal: AbortSignal): Promise<void> =>
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

export function createDeliveryQueue<T>(options: DeliveryQueueOptions<T>): DeliveryQueue {
  const { log, clock } = options;
  const controller = new AbortController();
  /** When the outage began (monotonic ms); null while the collector answers. */
  let outageSince: number | null = null;
  let running = false;
  let scheduled: Timer | null = null;
  let gaveUp = false;
  let idleWaiters: (() => void)[] = [];

  const startOutage = (failure: AttemptFailure, retryInMs: number | null): void => {
    if (outageSince !== null) return;
    outageSince = clock.monotonic();
    log.warn('collector unreachable; spans are kept and will be retried', {
      error: failure.message,
      status: failure.status,
      ...(retryInMs === null ? {} : { retryInMs: Math.round(retryInMs) }),
    });
  };

  const sink = options.makeSink({
    maxRetries: options.maxRetries,
    maxBackoffMs: options.maxBackoffMs,
    signal: controller.signal,
    onRetry: (failure, delayMs) => startOutage(failure, delayMs),
  });

  /** Spans rejected since the episode's first partial_success; null when none is going on. */
  let rejecting: { spans: number } | null = null;

  const noteParts = (parts: SinkPart[]): void => {
    for (const part of parts) {
      if (part.outcome === 'rejected') {
        if (rejecting === null) {
          rejecting = { spans: 0 };
          log.warn(
            'collector rejected spans (partial success); not retried, their turns stay unrecorded for a later export',
            { rejectedSpans: part.rejectedSpans, error: part.errorMessage },
          );
        }
        rejecting.spans += part.rejectedSpans;
      } else if (part.outcome === 'too-large')
        log.error('span too large for the collector even alone (HTTP 413); not sent', {
          spanId: part.spanId,
          bytes: part.bytes,
        });
    }
    if (rejecting !== null && parts.length > 0 && parts.every((p) => p.outcome === 'accepted')) {
      log.info('collector accepting every span again', { rejectedSpans: rejecting.spans });
      rejecting = null;
    }
  };

  /** Acknowledges what the collector answered for; returns the rest of the batch. */
  async function settleParts(batch: Batch<T>, parts: SinkPart[]): Promise<Batch<T>> {
    const answered = parts[parts.length - 1]?.to ?? 0;
    if (answered === 0) return batch;
    if (outageSince !== null) {
      log.info('collector reachable again; delivering held spans', {
        outageSeconds: Math.round((clock.monotonic() - outageSince) / 1000),
      });
      outageSince = null;
    }
    noteParts(parts);
    const accepted: T[] = [];
    const refused: T[] = [];
    for (const part of parts)
      (part.outcome === 'accepted' ? accepted : refused).push(
        ...batch.items.slice(part.from, part.to),
      );
    if (accepted.length > 0) await options.onAccepted(accepted);
    if (refused.length > 0) await options.onRefused(refused);
    return { items: batch.items.slice(answered), spans: batch.spans.slice(answered) };
  }

  /** Sends one batch until every span is accepted, refused, or we stop. */
  async function deliver(whole: Batch<T>): Promise<void> {
    let backoff = 1000;
    let batch = whole;
    for (;;) {
      const result = await sink.send({ spans: batch.spans });
      batch = await settleParts(batch, result.parts);
      if (result.ok || batch.items.length === 0) return;
      const failure = result.failure as AttemptFailure;
      if (controller.signal.aborted) return options.onReturned(batch.items);
      if (failure.status === 400) {
        log.error('collector refused spans; they will not be retried', {
          error: failure.message,
          spans: batch.spans.length,
        });
        await options.onRefused(batch.items);
        return;
      }
      if (failure.retryable) {
        // Only with a finite retry budget (--once): give the spans back for the next run.
        gaveUp = true;
        startOutage(failure, null);
        return options.onReturned(batch.items);
      }
      // 401, 403, 404…: a configuration problem someone may fix; keep trying, slowly.
      startOutage(failure, backoff);
      await sleep(clock, backoff, controller.signal);
      backoff = Math.min(backoff * 2, options.maxBackoffMs);
    }
  }

  async function run(): Promise<void> {
    running = true;
    try {
      while (!controller.signal.aborted && !gaveUp) {
        const batch = options.pull(options.maxBatchSpans);
        if (batch.items.length === 0) break;
        await deliver(batch);
      }
    } catch (err) {
      log.error('delivery failed unexpectedly', { error: err });
    } finally {
      running = false;
      wakeWaiters();
    }
  }

  function wakeWaiters(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  return {
    kick() {
      if (running || scheduled !== null || controller.signal.aborted) return;
      scheduled = clock.setTimer(options.lingerMs, () => {
        scheduled = null;
        void run();
      });
    },
    whenIdle() {
      if (!running && scheduled === null) return Promise.resolve();
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
      });
    },
    get busy() {
      return running || scheduled !== null;
    },
    get gaveUp() {
      return gaveUp;
    },
    abort() {
      controller.abort();
      scheduled?.cancel();
      scheduled = null;
      if (!running) wakeWaiters();
    },
  };
}
