// The daemon's delivery queue on a manual clock (test/support/manual-clock.ts):
// batching linger, backoff and outage length are checked without real sleeps.
import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../../../../src/adapters/otlp/http-sender.js';
import { createJsonLogger } from '../../../../../src/adapters/logger.js';
import { createDeliveryQueue } from '../../../../../src/app/watch/delivery/delivery-queue.js';
import type {
  RetryPolicy,
  SinkPart,
  SinkResult,
} from '../../../../../src/app/deliver/span-sink.js';
import { spanCountOfBatch } from '../../../../../src/app/deliver/span-batch.js';
import { manualClock } from '../../../../support/manual-clock.js';
import { testSpan as span } from '../../../../support/test-span.js';

const down: AttemptFailure = {
  retryable: true,
  status: 0,
  message: 'ECONNREFUSED',
  retryAfterMs: null,
};

const answered = (parts: SinkPart[], attempts = 1): SinkResult => ({
  ok: true,
  attempts,
  bytes: 0,
  parts,
  failure: null,
});
const failed = (failure: AttemptFailure, attempts = 1, parts: SinkPart[] = []): SinkResult => ({
  ok: false,
  attempts,
  bytes: 0,
  parts,
  failure,
});

/** A queue over a fixed list of items with a scripted sink (answers get the batch size). */
function setup(
  answers: ((policy: RetryPolicy, size: number) => SinkResult)[],
  maxRetries = Infinity,
  lingerMs = 0,
) {
  const clock = manualClock();
  const items = ['1', '2', '3'];
  const accepted: string[][] = [];
  const refused: string[][] = [];
  const returned: string[][] = [];
  const logs: { level: string; msg: string }[] = [];
  const queue = createDeliveryQueue<string>({
    makeSink: (policy) => ({
      description: 'fake',
      form: 'spans',
      send: (batch) => {
        const answer =
          answers.shift() ??
          ((_p: RetryPolicy, n: number) => answered([{ from: 0, to: n, outcome: 'accepted' }]));
        return Promise.resolve(answer(policy, spanCountOfBatch(batch)));
      },
    }),
    log: createJsonLogger(
      (l) => logs.push(JSON.parse(l) as { level: string; msg: string }),
      'debug',
    ),
    clock,
    maxRetries,
    maxBackoffMs: 10_000,
    lingerMs,
    maxBatchSpans: 2,
    pull: (max) => {
      const batch = items.splice(0, Math.min(max, 2));
      return { items: batch, spans: batch.map(span), events: [] };
    },
    onAccepted: (b) => Promise.resolve(void accepted.push(b)),
    onRefused: (b) => Promise.resolve(void refused.push(b)),
    onReturned: (b) => void returned.push(b),
  });
  return { queue, clock, accepted, refused, returned, logs };
}

describe('delivery queue', () => {
  it('logs an outage once however many retries it takes, and its end once', async () => {
    const retriesThenOk = (policy: RetryPolicy, n: number): SinkResult => {
      for (let i = 1; i <= 4; i += 1) policy.onRetry?.(down, 10, i);
      return answered([{ from: 0, to: n, outcome: 'accepted' }], 5);
    };
    const { queue, clock, accepted, logs } = setup([retriesThenOk]);
    queue.kick();
    await clock.advance(0);
    await queue.whenIdle();
    expect(accepted).toEqual([['1', '2'], ['3']]);
    expect(logs.filter((l) => l.msg.startsWith('collector unreachable'))).toHaveLength(1);
    expect(logs.filter((l) => l.msg.startsWith('collector reachable again'))).toHaveLength(1);
  });

  it('drops a batch the collector refuses as bad (400) and goes on', async () => {
    const { queue, clock, accepted, refused } = setup([
      () => failed({ retryable: false, status: 400, message: 'HTTP 400', retryAfterMs: null }),
    ]);
    queue.kick();
    await clock.advance(0);
    await queue.whenIdle();
    expect(refused).toEqual([['1', '2']]);
    expect(accepted).toEqual([['3']]);
  });

  it('with a finite budget (--once) gives the spans back and stops', async () => {
    const { queue, clock, accepted, returned } = setup([() => failed(down, 6)], 5);
    queue.kick();
    await clock.advance(0);
    await queue.whenIdle();
    expect(returned).toEqual([['1', '2']]);
    expect(accepted).toEqual([]);
    expect(queue.gaveUp).toBe(true);
  });

  it('partial_success: the batch is refused (not retried), one warning per episode, its end noted', async () => {
    const rejected = (): SinkResult =>
      answered([{ from: 0, to: 2, outcome: 'rejected', rejectedSpans: 1, errorMessage: 'quota' }]);
    const { queue, clock, accepted, refused, logs } = setup([rejected]);
    queue.kick();
    await clock.advance(0);
    await queue.whenIdle();
    expect(refused).toEqual([['1', '2']]);
    expect(accepted).toEqual([['3']]);
    const warned = logs.filter((l) => l.msg.startsWith('collector rejected spans'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 'warn', rejectedSpans: 1, error: 'quota' });
    expect(logs.filter((l) => l.msg === 'collector accepting every span again')).toHaveLength(1);
  });

  it('split verdicts: accepted halves are acknowledged, a span too large alone is refused and named', async () => {
    const split = (): SinkResult =>
      answered([
        { from: 0, to: 1, outcome: 'accepted' },
        { from: 1, to: 2, outcome: 'too-large', spanId: '0000000000000002', bytes: 9999 },
      ]);
    const { queue, clock, accepted, refused, logs } = setup([split]);
    queue.kick();
    await clock.advance(0);
    await queue.whenIdle();
    expect(accepted).toEqual([['1'], ['3']]);
    expect(refused).toEqual([['2']]);
    expect(logs.find((l) => l.msg.startsWith('span too large'))).toMatchObject({
      spanId: '0000000000000002',
      bytes: 9999,
    });
  });

  it('a failure after some halves went through resends only the rest', async () => {
    const sizes: number[] = [];
    const { queue, clock, accepted } = setup([
      (_p, n) => {
        sizes.push(n);
        const status500 = {
          retryable: false,
          status: 500,
          message: 'HTTP 500',
          retryAfterMs: null,
        };
        return failed(status500, 1, [{ from: 0, to: 1, outcome: 'accepted' }]);
      },
      (_p, n) => {
        sizes.push(n);
        return answered([{ from: 0, to: n, outcome: 'accepted' }]);
      },
    ]);
    queue.kick();
    await clock.advance(0);
    expect(sizes).toEqual([2]);
    await clock.advance(999); // the first backoff is 1 s
    expect(sizes).toEqual([2]);
    await clock.advance(1);
    await queue.whenIdle();
    expect(sizes).toEqual([2, 1]);
    expect(accepted).toEqual([['1'], ['2'], ['3']]);
  });

  it('lingers lingerMs before the first send, batching what becomes ready meanwhile', async () => {
    const { queue, clock, accepted } = setup([], Infinity, 5);
    queue.kick();
    queue.kick();
    expect(queue.busy).toBe(true);
    expect(clock.pending).toBe(1);
    await clock.advance(4);
    expect(accepted).toEqual([]);
    await clock.advance(1);
    await queue.whenIdle();
    expect(accepted).toEqual([['1', '2'], ['3']]);
    expect(queue.busy).toBe(false);
  });

  it('a configuration failure (404) is retried with doubling backoff; the outage length is logged once it ends', async () => {
    const notFound: AttemptFailure = {
      retryable: false,
      status: 404,
      message: 'HTTP 404',
      retryAfterMs: null,
    };
    const sent: number[] = [];
    const { queue, clock, accepted, logs } = setup([
      () => (sent.push(clock.monotonic()), failed(notFound)),
      () => (sent.push(clock.monotonic()), failed(notFound)),
      (_p, n) => (
        sent.push(clock.monotonic()),
        answered([{ from: 0, to: n, outcome: 'accepted' }])
      ),
    ]);
    queue.kick();
    await clock.advance(0);
    await clock.advance(1000);
    await clock.advance(1999);
    expect(sent).toEqual([0, 1000]);
    await clock.advance(1);
    await queue.whenIdle();
    expect(sent).toEqual([0, 1000, 3000]);
    expect(accepted).toEqual([['1', '2'], ['3']]);
    expect(logs.filter((l) => l.msg.startsWith('collector unreachable'))).toHaveLength(1);
    expect(logs.find((l) => l.msg.startsWith('collector reachable again'))).toMatchObject({
      outageSeconds: 3,
    });
  });

  it('abort cancels a pending linger and ends a backoff at once, giving the spans back', async () => {
    const idle = setup([], Infinity, 50);
    idle.queue.kick();
    idle.queue.abort();
    expect(idle.clock.pending).toBe(0);
    await idle.queue.whenIdle();
    expect(idle.accepted).toEqual([]);

    const status500 = { retryable: false, status: 500, message: 'HTTP 500', retryAfterMs: null };
    // The real sink gives up at once on an aborted signal; so does this one.
    const stopped = (policy: RetryPolicy, n: number): SinkResult =>
      policy.signal?.aborted === true
        ? failed(down)
        : answered([{ from: 0, to: n, outcome: 'accepted' }]);
    const backingOff = setup([() => failed(status500), stopped]);
    backingOff.queue.kick();
    await backingOff.clock.advance(0);
    expect(backingOff.clock.pending).toBe(1); // the backoff
    backingOff.queue.abort();
    await backingOff.queue.whenIdle();
    expect(backingOff.clock.pending).toBe(0);
    expect(backingOff.returned).toEqual([['1', '2']]);
    expect(backingOff.accepted).toEqual([]);
  });
});
