// The daemon's parts on a manual clock: batching and spacing of rebuilds, the
// idle timer, the job chain (session-schedule.ts); what a file event means
// (event-router.ts); what the start-up scan loads (startup-plan.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventRouter } from '../../../../src/app/watch/intake/event-router.js';
import { SessionSchedule } from '../../../../src/app/watch/sessions/session-schedule.js';
import { planSession } from '../../../../src/app/watch/lifecycle/startup-plan.js';
import type { WatchState } from '../../../../src/app/watch/state/watch-state.js';
import { manualClock } from '../../../support/manual-clock.js';

function schedule(rebuildDelayMs = 10) {
  const clock = manualClock();
  const errors: unknown[] = [];
  const s = new SessionSchedule({ clock, rebuildDelayMs, onError: (e) => errors.push(e) });
  return { clock, s, errors };
}

describe('session schedule', () => {
  it('batches the lines of one moment into one rebuild, after the delay', async () => {
    const { clock, s } = schedule(10);
    let rebuilds = 0;
    for (let i = 0; i < 5; i += 1) s.requestRebuild(() => void (rebuilds += 1));
    expect(s.rebuildPending).toBe(true);
    await clock.advance(9);
    expect(rebuilds).toBe(0);
    await clock.advance(1);
    expect(rebuilds).toBe(1);
    expect(s.rebuildPending).toBe(false);
  });

  it('spaces rebuilds out to three times their cost', async () => {
    const { clock, s } = schedule(10);
    // A rebuild that takes 100 ms of (manual) time.
    s.timed(() => {
      void clock.advance(100);
    });
    await clock.advance(0);
    let at = -1;
    s.requestRebuild(() => void (at = clock.monotonic()));
    await clock.advance(500);
    // Ended at 100, cost 100: the next may start 300 ms after the last ended.
    expect(at).toBe(400);
  });

  it('does not space out the rebuild after one that folded turns away', async () => {
    const { clock, s } = schedule(10);
    s.timed(() => {
      void clock.advance(1000);
    });
    s.forgetCost();
    await clock.advance(0);
    let at = -1;
    s.requestRebuild(() => void (at = clock.monotonic()));
    await clock.advance(5000);
    // Only the batching delay: the 1 s rebuild (a start-up's whole history) is no guide.
    expect(at).toBe(1010);
  });

  it('fires the idle job once the session stayed quiet, each new line re-arming it', async () => {
    const { clock, s } = schedule();
    let idle = 0;
    s.armIdle(1000, () => void (idle += 1));
    await clock.advance(900);
    s.armIdle(1000, () => void (idle += 1));
    await clock.advance(900);
    expect(idle).toBe(0);
    await clock.advance(100);
    expect(idle).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('runs jobs in order, goes on after one throws, and starts no timer once stopped', async () => {
    const { clock, s, errors } = schedule();
    const order: number[] = [];
    void s.run(async () => {
      await Promise.resolve();
      order.push(1);
    });
    void s.run(() => {
      throw new Error('boom');
    });
    await s.run(() => void order.push(3));
    expect(order).toEqual([1, 3]);
    expect(errors).toHaveLength(1);
    s.armIdle(10, () => void order.push(4));
    s.stop();
    s.requestRebuild(() => void order.push(5));
    s.armIdle(10, () => void order.push(6));
    await clock.advance(100);
    expect(order).toEqual([1, 3]);
    expect(clock.pending).toBe(0);
  });
});

describe('event router', () => {
  // In the host's form, as the watcher hands roots and paths over (\p on Windows).
  const root = join('/', 'p');
  const project = join(root, '-home-dev-app');
  const sid = '780c4b16-a510-49fa-b2b2-bbd1c38dbe31';

  it('routes main, sub-agent and sidecar files to their session', async () => {
    const r = new EventRouter({ roots: [root], ownerOf: () => Promise.resolve(null) });
    const key = join(project, `${sid}.jsonl`);
    expect(await r.route({ type: 'change', path: key })).toEqual({
      kind: 'changed',
      key,
      sessionId: sid,
      path: key,
    });
    const agent = join(project, sid, 'subagents', 'agent-a1.jsonl');
    expect(await r.route({ type: 'add', path: agent })).toMatchObject({ kind: 'changed', key });
    expect(await r.route({ type: 'unlink', path: agent })).toEqual({
      kind: 'file-removed',
      key,
      path: agent,
    });
    expect(await r.route({ type: 'unlink', path: key })).toEqual({ kind: 'session-removed', key });
    expect(await r.route({ type: 'change', path: join(project, 'notes.txt') })).toBeNull();
    expect(await r.route({ type: 'change', path: '/elsewhere/x.jsonl' })).toBeNull();
  });

  it('reads a flat agent file’s owner once it is written, then remembers it', async () => {
    let owner: string | null = null;
    let asked = 0;
    const r = new EventRouter({
      roots: [root],
      ownerOf: () => {
        asked += 1;
        return Promise.resolve(owner);
      },
    });
    const flat = join(project, 'agent-3f9c2a1b.jsonl');
    expect(await r.route({ type: 'add', path: flat })).toBeNull();
    owner = sid;
    const key = join(project, `${sid}.jsonl`);
    expect(await r.route({ type: 'change', path: flat })).toEqual({
      kind: 'changed',
      key,
      sessionId: sid,
      path: flat,
    });
    await r.route({ type: 'change', path: flat });
    expect(asked).toBe(2);
    expect(r.flatAgentsOf(key)).toEqual([flat]);
    r.forgetSession(key);
    expect(r.flatAgentsOf(key)).toEqual([]);
  });
});

describe('startup plan', () => {
  const key = '/p/x/s.jsonl';
  const current = { [key]: { ino: 7, size: 100 } };
  const now = 1_000_000;
  const idleMs = 60_000;

  it('first start: history is noted, not sent; only a session in use is loaded', () => {
    const quiet = planSession(
      { key, current, lastWrite: now - idleMs },
      { prior: null, backfill: false, now, idleMs },
    );
    expect(quiet).toEqual({
      record: { files: current, skip: 0, baseline: 100, live: false, turns: {} },
      load: false,
    });
    const inUse = planSession(
      { key, current, lastWrite: now - 1 },
      { prior: null, backfill: false, now, idleMs },
    );
    expect(inUse.load).toBe(true);
    expect(inUse.record.baseline).toBe(100);
  });

  it('later starts: a known session loads if live or changed; --backfill resets skip and baseline', () => {
    const prior: WatchState = {
      version: 1,
      createdAt: 'x',
      sessions: { [key]: { files: current, skip: 2, baseline: 50, live: false, turns: {} } },
    };
    const same = planSession(
      { key, current, lastWrite: 0 },
      { prior, backfill: false, now, idleMs },
    );
    expect(same.load).toBe(false);
    const grown = planSession(
      { key, current: { [key]: { ino: 7, size: 120 } }, lastWrite: 0 },
      { prior, backfill: false, now, idleMs },
    );
    expect(grown.load).toBe(true);
    expect(grown.record.skip).toBe(2);
    const backfill = planSession(
      { key, current, lastWrite: 0 },
      { prior, backfill: true, now, idleMs },
    );
    expect(backfill).toMatchObject({ load: true, record: { skip: 0, baseline: null } });
    const unseen = planSession(
      { key: '/p/x/t.jsonl', current, lastWrite: 0 },
      { prior, backfill: false, now, idleMs },
    );
    expect(unseen).toMatchObject({ load: true, record: { baseline: null, live: true } });
  });
});
