// Export's state pacing on a manual clock: a delivered turn is written down at
// most once a second and at the end, a failed save surfaces at the next
// delivery, and a failing run still records what it delivered.
import { describe, expect, it } from 'vitest';
import { ExportRecorder, SAVE_EVERY_MS } from '../../../../src/app/export/recorder.js';
import {
  emptyExportState,
  type ExportState,
} from '../../../../src/adapters/state/export-state-file.js';
import { UserError } from '../../../../src/core/user-error.js';
import { manualClock } from '../../../support/manual-clock.js';

/** A recorder whose saves are kept (a copy of the turns each time), optionally failing. */
function recorderWith(fail: () => boolean = () => false) {
  const clock = manualClock();
  const saves: Record<string, string>[] = [];
  const state: ExportState = emptyExportState();
  const recorder = new ExportRecorder(state, '/state', clock, (s) => {
    if (fail()) return Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
    saves.push({ ...s.turns });
    return Promise.resolve();
  });
  return { clock, saves, recorder };
}

const settled = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

describe('ExportRecorder', () => {
  it('saves at most once a second while delivering, and what is left at the end', async () => {
    const { clock, saves, recorder } = recorderWith();
    recorder.record('t1', 'd1');
    recorder.paced();
    await settled();
    expect(saves).toEqual([]);
    await clock.advance(SAVE_EVERY_MS);
    recorder.record('t2', 'd2');
    recorder.paced();
    await settled();
    expect(saves).toEqual([{ t1: 'd1', t2: 'd2' }]);
    recorder.record('t3', 'd3');
    recorder.paced();
    await settled();
    expect(saves).toHaveLength(1);
    await recorder.finish();
    expect(saves).toEqual([
      { t1: 'd1', t2: 'd2' },
      { t1: 'd1', t2: 'd2', t3: 'd3' },
    ]);
    expect(recorder.delivered('t3', 'd3')).toBe(true);
    expect(recorder.delivered('t3', 'other')).toBe(false);
  });

  it('writes nothing at the end when nothing was recorded', async () => {
    const { saves, recorder } = recorderWith();
    await recorder.finish();
    expect(saves).toEqual([]);
    expect(recorder.holdsTurns).toBe(false);
  });

  it('throws a failed periodic save at the next delivery, naming the state dir', async () => {
    let failing = true;
    const { clock, recorder, saves } = recorderWith(() => failing);
    recorder.record('t1', 'd1');
    await clock.advance(SAVE_EVERY_MS);
    recorder.paced();
    await settled();
    let thrown: unknown;
    try {
      recorder.paced();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect((thrown as Error).message).toMatch(/^cannot write the state file in \/state: ENOSPC/);
    // The turn stays to be saved: the next save writes it.
    failing = false;
    await recorder.finish();
    expect(saves).toEqual([{ t1: 'd1' }]);
  });

  it('on abandon records what was delivered and swallows a save error', async () => {
    const { recorder, saves } = recorderWith();
    recorder.record('t1', 'd1');
    await recorder.abandon();
    expect(saves).toEqual([{ t1: 'd1' }]);
    const failing = recorderWith(() => true);
    failing.recorder.record('t1', 'd1');
    await expect(failing.recorder.abandon()).resolves.toBeUndefined();
  });

  it('keeps a proposed mark at the end only if every turn in its window was recorded with its digest', async () => {
    const { recorder } = recorderWith();
    const mark = (turns: [string, number, string][], since: number | null = null) => ({
      under: 'k',
      since,
      files: [],
      turns,
      warnings: [],
      unknownModels: [],
      lateAgents: 0,
    });
    recorder.record('t1', 'd1');
    recorder.record('t2', 'other');
    recorder.propose('/all.jsonl', mark([['t1', 5, 'd1']]));
    recorder.propose(
      '/changed.jsonl',
      mark([
        ['t1', 5, 'd1'],
        ['t2', 6, 'd2'],
      ]),
    );
    recorder.propose('/missing.jsonl', mark([['t3', 7, 'd3']]));
    // Before the window: never delivered, not asked for.
    recorder.propose(
      '/window.jsonl',
      mark(
        [
          ['t3', 1, 'd3'],
          ['t1', 5, 'd1'],
        ],
        2,
      ),
    );
    expect(recorder.markOf('/all.jsonl')).toBeUndefined();
    await recorder.finish();
    expect(recorder.markedSessions().sort()).toEqual(['/all.jsonl', '/window.jsonl']);
    // Read again and proposed as not whole (a run stopped in it): the old mark goes.
    recorder.propose('/all.jsonl', null);
    recorder.forget('/window.jsonl');
    await recorder.finish();
    expect(recorder.markedSessions()).toEqual([]);
    expect(recorder.holdsMarks).toBe(false);
  });
});
