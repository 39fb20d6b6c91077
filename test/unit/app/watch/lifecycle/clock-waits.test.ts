// The daemon's timing parts on a manual clock (test/support/manual-clock.ts):
// the deadline wait its shutdown uses, the send loop's linger and idle
// signal, and the outage log's once-per-episode lines.
import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../../../src/adapters/logger.js';
import { until } from '../../../../../src/app/watch/lifecycle/clock-waits.js';
import { DrainLoop } from '../../../../../src/app/watch/delivery/drain-loop.js';
import { manualClock } from '../../../../support/manual-clock.js';

const recorder = () => {
  const logs: Record<string, unknown>[] = [];
  const log = createJsonLogger((l) => logs.push(JSON.parse(l) as Record<string, unknown>), 'debug');
  return { logs, log };
};

describe('until', () => {
  it('ends at the deadline when the work does not', async () => {
    const clock = manualClock();
    let over = false;
    void until(clock, new Promise(() => undefined), clock.now() + 100).then(() => (over = true));
    await clock.advance(99);
    expect(over).toBe(false);
    await clock.advance(1);
    expect(over).toBe(true);
  });

  it('ends with the work, cancelling its timer so nothing is left pending', async () => {
    const clock = manualClock();
    await until(clock, Promise.resolve(), clock.now() + 1000);
    expect(clock.pending).toBe(0);
  });
});

describe('DrainLoop', () => {
  const setup = (batches: number) => {
    const clock = manualClock();
    const { log } = recorder();
    const controller = new AbortController();
    let left = batches;
    const sentAt: number[] = [];
    const loop = new DrainLoop({
      clock,
      lingerMs: 5,
      log,
      signal: controller.signal,
      halted: () => false,
      sendNext() {
        if (left === 0) return null;
        left -= 1;
        sentAt.push(clock.monotonic());
        return Promise.resolve();
      },
    });
    return { clock, controller, loop, sentAt };
  };

  it('sends after the linger, every batch in one drain, then reports idle', async () => {
    const { clock, loop, sentAt } = setup(3);
    loop.kick();
    loop.kick(); // a second kick during the linger adds no drain
    expect(loop.busy).toBe(true);
    expect(clock.pending).toBe(1);
    let idle = false;
    void loop.whenIdle().then(() => (idle = true));
    await clock.advance(4);
    expect(sentAt).toEqual([]);
    await clock.advance(1);
    expect(sentAt).toEqual([5, 5, 5]);
    expect(idle).toBe(true);
    expect(loop.busy).toBe(false);
  });

  it('once aborted, a pending linger is dropped, waiters wake, and kicks start nothing', async () => {
    const { clock, controller, loop, sentAt } = setup(1);
    loop.kick();
    let idle = false;
    void loop.whenIdle().then(() => (idle = true));
    controller.abort();
    loop.cancel();
    await clock.advance(0);
    expect(idle).toBe(true);
    loop.kick();
    expect(clock.pending).toBe(0);
    await clock.advance(10);
    expect(sentAt).toEqual([]);
  });
});
