// The daemon's state saver on a manual clock, writing real files: saveSoon
// waits SAVE_SOON_MS and batches, cancelSoon drops the wait, a failing disk is
// logged once and once more when saving works again.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../../../src/adapters/logger.js';
import { openExportRecords } from '../../../../../src/app/watch/state/export-records.js';
import { createStateSaver, SAVE_SOON_MS } from '../../../../../src/app/watch/state/state-saver.js';
import { watchStatePath, type WatchState } from '../../../../../src/app/watch/state/watch-state.js';
import { manualClock } from '../../../../support/manual-clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-saver-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function setup() {
  const clock = manualClock();
  const logs: { level: string; msg: string }[] = [];
  const log = createJsonLogger(
    (l) => logs.push(JSON.parse(l) as { level: string; msg: string }),
    'debug',
  );
  const records = await openExportRecords(dir, log);
  let snapshots = 0;
  const snapshot = (): WatchState => {
    snapshots += 1;
    return { version: 1, createdAt: `save ${snapshots}`, sessions: {} };
  };
  const saver = createStateSaver(dir, records, snapshot, log, clock);
  const saved = (): string | null => {
    try {
      return (JSON.parse(readFileSync(watchStatePath(dir), 'utf8')) as WatchState).createdAt;
    } catch {
      return null;
    }
  };
  return { clock, logs, records, saver, saved, snapshots: () => snapshots };
}

describe('state saver', () => {
  it('saveSoon writes once after SAVE_SOON_MS, however many calls came meanwhile', async () => {
    const { clock, saver, saved, snapshots } = await setup();
    saver.saveSoon();
    await clock.advance(SAVE_SOON_MS / 2);
    saver.saveSoon();
    saver.saveSoon();
    await clock.advance(SAVE_SOON_MS / 2 - 1);
    expect(snapshots()).toBe(0);
    expect(saved()).toBeNull();
    await clock.advance(1);
    expect(snapshots()).toBe(1);
    await saver.save(); // runs after the one under way, which wrote 'save 1'
    expect(saved()).toBe('save 2');
    expect(clock.pending).toBe(0);
  });

  it('cancelSoon drops the pending save; export-state records go first', async () => {
    const { clock, records, saver, saved, snapshots } = await setup();
    saver.saveSoon();
    saver.cancelSoon();
    expect(clock.pending).toBe(0);
    await clock.advance(SAVE_SOON_MS * 2);
    expect(snapshots()).toBe(0);
    records.record('a'.repeat(32), 'digest');
    await saver.save();
    expect(saved()).toBe('save 1');
    const exported = JSON.parse(readFileSync(join(dir, 'export-state.json'), 'utf8')) as {
      turns: Record<string, string>;
    };
    expect(exported.turns).toEqual({ ['a'.repeat(32)]: 'digest' });
  });

  it('calls made while a save runs share the next one', async () => {
    const { saver, snapshots } = await setup();
    const first = saver.save();
    const second = saver.save();
    const third = saver.save();
    expect(third).toBe(second);
    await Promise.all([first, second, third]);
    expect(snapshots()).toBeLessThanOrEqual(2);
  });

  it('a failing disk is logged once, and once more when saving works again', async () => {
    const { clock, logs, saver, saved } = await setup();
    // A non-empty directory where the state file goes: the atomic rename fails.
    mkdirSync(watchStatePath(dir));
    writeFileSync(join(watchStatePath(dir), 'in-the-way'), 'x');
    await saver.save();
    saver.saveSoon();
    await clock.advance(SAVE_SOON_MS);
    await saver.save();
    expect(logs.filter((l) => l.msg === 'cannot save state; will retry')).toHaveLength(1);
    rmSync(watchStatePath(dir), { recursive: true });
    await saver.save();
    expect(saved()).not.toBeNull();
    expect(logs.filter((l) => l.msg === 'state saved again')).toHaveLength(1);
  });
});
