// `show --json` read in segments (bounded memory) writes the same bytes as the
// session read whole, on every fixture session and at every segment size.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSessions } from '../../../../src/adapters/files/session-files.js';
import { show, type ShowOptions } from '../../../../src/app/show/show.js';
import { NO_FILTER } from '../../../../src/app/show/render/view-filter.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures');

const base = (target: string): ShowOptions => ({
  target,
  projectsDirs: [],
  format: 'json',
  html: null,
  pricingFile: null,
  color: false,
  width: 100,
  filter: NO_FILTER,
  compact: false,
});

async function segmented(target: string, segmentRecords: number): Promise<string> {
  let out = '';
  // No forced cuts: a segment cut while a turn still waits for a line is the
  // documented inexact case (counted as forcedCuts), not what this compares.
  const result = await show({
    ...base(target),
    write: (t) => (out += t),
    segmentRecords,
    forceRecords: Number.POSITIVE_INFINITY,
  });
  expect(result.stdout).toBe('');
  return out;
}

describe('show --json in segments', () => {
  it('equals the whole read on every fixture, at segment sizes 1, 3 and the default', async () => {
    const sessions = [
      ...(await findSessions(join(FIXTURES, 'hand'))),
      ...(await findSessions(join(FIXTURES, 'real-layout'))),
      ...(await findSessions(join(FIXTURES, 'real'))),
    ];
    expect(sessions.length).toBeGreaterThan(30);
    for (const files of sessions) {
      const whole = (
        await show({ ...base(files.mainFile), segmentRecords: Number.POSITIVE_INFINITY })
      ).stdout;
      expect(JSON.parse(whole)).toHaveProperty('rows');
      for (const size of [1, 3, 5000])
        expect(await segmented(files.mainFile, size), `${files.mainFile} at ${size}`).toBe(whole);
    }
  });
});
