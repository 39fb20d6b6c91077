// Outages told once at their start and once at their end (app/outage-log.ts),
// for the daemon's log and for export's stderr lines through its sink.
import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../../src/adapters/logger.js';
import { OutageLog, outageLogOf } from '../../../../src/app/deliver/outage-log.js';
import type { SinkOf, SinkPart } from '../../../../src/app/deliver/span-sink.js';
import { manualClock } from '../../../support/manual-clock.js';

const recorder = () => {
  const logs: Record<string, unknown>[] = [];
  const log = createJsonLogger((l) => logs.push(JSON.parse(l) as Record<string, unknown>), 'debug');
  return { logs, log };
};

describe("OutageLog (the daemon's lines)", () => {
  const down = { retryable: true, status: 0, message: 'ECONNREFUSED', retryAfterMs: null };

  it('logs the start once however many failures, and the end once with its length', async () => {
    const clock = manualClock();
    const { logs, log } = recorder();
    const outage = outageLogOf(log, clock);
    outage.end(); // no outage going on: nothing to say
    outage.start(down, 1000);
    await clock.advance(30_000);
    outage.start(down, 2000);
    await clock.advance(12_400);
    outage.end();
    outage.end();
    expect(logs.map((l) => l.msg)).toEqual([
      'collector unreachable; spans are kept and will be retried',
      'collector reachable again; delivering held spans',
    ]);
    expect(logs[0]).toMatchObject({ error: 'ECONNREFUSED', status: 0, retryInMs: 1000 });
    expect(logs[1]).toMatchObject({ outageSeconds: 42 });
  });
});

describe("OutageLog.watch (export's sink)", () => {
  const down = { retryable: true, status: 503, message: 'HTTP 503', retryAfterMs: null };

  it('the first send answered after an outage ends it; an unanswered one does not', async () => {
    const clock = manualClock();
    const told: string[] = [];
    const outage = new OutageLog(
      {
        started: (f, delay) => told.push(`start ${f.message} ${delay}`),
        ended: (ms) => told.push(`end ${ms}`),
      },
      clock,
    );
    const answers: SinkPart[][] = [[], [{ from: 0, to: 1, outcome: 'accepted' }]];
    const inner: SinkOf<'count'> = {
      description: 'fake',
      form: 'count',
      send: () =>
        Promise.resolve({
          ok: true,
          attempts: 1,
          bytes: 0,
          parts: answers.shift() ?? [],
          failure: null,
        }),
    };
    const sink = outage.watch(inner);
    expect(sink.form).toBe('count');
    outage.start(down, 1500);
    outage.start(down, 2250);
    await clock.advance(4000);
    await sink.send({ form: 'count', count: 1 });
    expect(told).toEqual(['start HTTP 503 1500']);
    await sink.send({ form: 'count', count: 1 });
    await sink.send({ form: 'count', count: 1 });
    expect(told).toEqual(['start HTTP 503 1500', 'end 4000']);
  });
});
