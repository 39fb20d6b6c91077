// Sends ready spans in batches (≤ 512), one request at a time, as soon as
// they appear (a few ms of linger to batch spans that complete together).
// Nothing is dropped while the collector is away: the sender retries with
// backoff (capped at 30 s) until it answers, and spans completing meanwhile
// wait in their sessions' outboxes. The outage is logged once when it starts
// and once when it ends, never per span or per attempt.
import type { AttemptFailure } from '../../adapters/otlp-http-sender.js';
import type { Logger } from '../../adapters/logger.js';
import type { SpanData } from '../../core/span-data.js';
import type { RetryPolicy, SpanSink } from '../span-sink.js';

export const MAX_BATCH_SPANS = 512;

export interface Batch<T> {
  items: T[];
  spans: SpanData[];
}

export interface DeliveryQueueOptions<T> {
  /** Builds the sink with the queue's retry policy (it reports retries for outage logging). */
  makeSink(policy: RetryPolicy): SpanSink;
  log: Logger;
  /** Attempts after the first per batch; Infinity for the daemon, a few for --once. */
  maxRetries: number;
  maxBackoffMs: number;
  lingerMs: number;
  /** Next spans to send, at most max. */
  pull(max: number): Batch<T>;
  /** The collector accepted the batch; resolves once that is durable. */
  onAccepted(items: T[]): Promise<void>;
  /** Refused for good (400/413): retrying the same bytes cannot help. */
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

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export function createDeliveryQueue<T>(options: DeliveryQueueOptions<T>): DeliveryQueue {
  const { log } = options;
  const controller = new AbortController();
  let outageSince: number | null = null;
  let running = false;
  let scheduled: NodeJS.Timeout | null = null;
  let gaveUp = false;
  let idleWaiters: (() => void)[] = [];

  const startOutage = (failure: AttemptFailure, retryInMs: number | null): void => {
    if (outageSince !== null) return;
    outageSince = Date.now();
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

  /** Sends one batch until it is accepted, refused, or we stop. */
  async function deliver(batch: Batch<T>): Promise<void> {
    let backoff = 1000;
    for (;;) {
      const result = await sink.send(batch.spans);
      if (result.ok) {
        if (outageSince !== null) {
          log.info('collector reachable again; delivering held spans', {
            outageSeconds: Math.round((Date.now() - outageSince) / 1000),
          });
          outageSince = null;
        }
        await options.onAccepted(batch.items);
        return;
      }
      const { failure } = result;
      if (controller.signal.aborted) return options.onReturned(batch.items);
      if (failure.status === 400 || failure.status === 413) {
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
      await sleep(backoff, controller.signal);
      backoff = Math.min(backoff * 2, options.maxBackoffMs);
    }
  }

  async function run(): Promise<void> {
    running = true;
    try {
      while (!controller.signal.aborted && !gaveUp) {
        const batch = options.pull(MAX_BATCH_SPANS);
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
      scheduled = setTimeout(() => {
        scheduled = null;
        void run();
      }, options.lingerMs);
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
      if (scheduled !== null) {
        clearTimeout(scheduled);
        scheduled = null;
      }
      if (!running) wakeWaiters();
    },
  };
}
