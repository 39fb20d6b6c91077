import { describe, expect, it } from 'vitest';
import type { SpanData } from '../../src/core/span-data.js';
import type { AttemptFailure, SendResult } from '../../src/adapters/otlp-http-sender.js';
import { createJsonLogger } from '../../src/adapters/logger.js';
import { createDeliveryQueue } from '../../src/app/watch/delivery-queue.js';
import type { RetryPolicy } from '../../src/app/span-sink.js';

const span = (id: string): SpanData => ({
  traceId: '0'.repeat(31) + '1',
  spanId: id.padStart(16, '0'),
  parentSpanId: null,
  name: 'x',
  kind: 'INTERNAL',
  startMs: 0,
  endMs: 1,
  attributes: {},
  status: { code: 'UNSET' },
  links: [],
  complete: true,
  turnKey: 't',
});

const down: AttemptFailure = {
  retryable: true,
  status: 0,
  message: 'ECONNREFUSED',
  retryAfterMs: null,
};

/** A queue over a fixed list of items with a scripted sink. */
function setup(answers: ((policy: RetryPolicy) => SendResult)[], maxRetries = Infinity) {
  const items = ['1', '2', '3'];
  const accepted: string[][] = [];
  const refused: string[][] = [];
  const returned: string[][] = [];
  const logs: { level: string; msg: string }[] = [];
  const queue = createDeliveryQueue<string>({
    makeSink: (policy) => ({
      description: 'fake',
      send: () => {
        const answer = answers.shift() ?? (() => ({ ok: true, attempts: 1 }) as SendResult);
        return Promise.resolve({ ...answer(policy), bytes: 0 });
      },
    }),
    log: createJsonLogger(
      (l) => logs.push(JSON.parse(l) as { level: string; msg: string }),
      'debug',
    ),
    maxRetries,
    maxBackoffMs: 10,
    lingerMs: 0,
    pull: (max) => {
      const batch = items.splice(0, Math.min(max, 2));
      return { items: batch, spans: batch.map(span) };
    },
    onAccepted: (b) => Promise.resolve(void accepted.push(b)),
    onRefused: (b) => Promise.resolve(void refused.push(b)),
    onReturned: (b) => void returned.push(b),
  });
  return { queue, accepted, refused, returned, logs };
}

describe('delivery queue', () => {
  it('logs an outage once however many retries it takes, and its end once', async () => {
    const retriesThenOk = (policy: RetryPolicy): SendResult => {
      for (let i = 1; i <= 4; i += 1) policy.onRetry?.(down, 10, i);
      return { ok: true, attempts: 5 };
    };
    const { queue, accepted, logs } = setup([retriesThenOk]);
    queue.kick();
    await new Promise((r) => setTimeout(r, 5));
    await queue.whenIdle();
    expect(accepted).toEqual([['1', '2'], ['3']]);
    expect(logs.filter((l) => l.msg.startsWith('collector unreachable'))).toHaveLength(1);
    expect(logs.filter((l) => l.msg.startsWith('collector reachable again'))).toHaveLength(1);
  });

  it('drops a batch the collector refuses as bad (400) and goes on', async () => {
    const { queue, accepted, refused } = setup([
      () => ({
        ok: false,
        attempts: 1,
        failure: { retryable: false, status: 400, message: 'HTTP 400', retryAfterMs: null },
      }),
    ]);
    queue.kick();
    await new Promise((r) => setTimeout(r, 5));
    await queue.whenIdle();
    expect(refused).toEqual([['1', '2']]);
    expect(accepted).toEqual([['3']]);
  });

  it('with a finite budget (--once) gives the spans back and stops', async () => {
    const { queue, accepted, returned } = setup(
      [() => ({ ok: false, attempts: 6, failure: down })],
      5,
    );
    queue.kick();
    await new Promise((r) => setTimeout(r, 5));
    await queue.whenIdle();
    expect(returned).toEqual([['1', '2']]);
    expect(accepted).toEqual([]);
    expect(queue.gaveUp).toBe(true);
  });
});
