// The terminal and HTML views (and filtered JSON) read the session in
// segments too (app/segmented-view.ts): the view must equal the one built
// from the session read whole, on every fixture session, at segment sizes
// that cut before every prompt.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { finish } from '../../../../src/core/model/assemble/finish.js';
import { windowsOf, type PriceTable } from '../../../../src/core/cost/pricing.js';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import { findSessions, type SessionFiles } from '../../../../src/adapters/files/session-files.js';
import { buildView } from '../../../support/whole-view.js';
import { loadSession } from '../../../support/whole-session.js';
import { buildViewInSegments } from '../../../../src/app/show/segmented-view.js';
import { show, type ShowOptions } from '../../../../src/app/show/show.js';
import { NO_FILTER } from '../../../../src/app/show/render/view-filter.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures');

let prices: PriceTable;
let sessions: SessionFiles[];
beforeAll(async () => {
  prices = await loadPriceTable();
  sessions = [
    ...(await findSessions(join(FIXTURES, 'hand'))),
    ...(await findSessions(join(FIXTURES, 'real-layout'))),
    ...(await findSessions(join(FIXTURES, 'real'))),
  ];
});

// No forced cuts: a cut while a turn still waits is the documented inexact case.
const sizes = (segmentRecords: number) => ({
  segmentRecords,
  forceRecords: Number.POSITIVE_INFINITY,
});

describe('show views in segments', () => {
  it('build the same view as the whole session, on every fixture', async () => {
    expect(sessions.length).toBeGreaterThan(30);
    let cut = 0;
    for (const files of sessions) {
      const loaded = await loadSession(files);
      const whole = buildView(finish(loaded.state, windowsOf(prices)), prices);
      for (const size of [1, 3]) {
        const parts = await buildViewInSegments(files, prices, sizes(size));
        expect(parts.view, `${files.mainFile} at ${size}`).toEqual(whole.view);
        expect(parts.unknownModels).toEqual(whole.unknownModels);
        if (size === 1 && whole.view.turns.length > 1) cut += 1;
      }
    }
    // Sessions of more than one turn were really cut into segments.
    expect(cut).toBeGreaterThan(10);
  });

  it('print the same terminal waterfall and filtered JSON', async () => {
    const base = (target: string): ShowOptions => ({
      target,
      projectsDirs: [],
      format: 'terminal',
      html: null,
      pricingFile: null,
      color: false,
      width: 120,
      filter: NO_FILTER,
      compact: false,
    });
    for (const files of sessions.slice(0, 40)) {
      const whole = await show({ ...base(files.mainFile), ...sizes(Number.POSITIVE_INFINITY) });
      expect(await show({ ...base(files.mainFile), ...sizes(1) })).toEqual(whole);
      const errors = {
        ...base(files.mainFile),
        format: 'json' as const,
        filter: { ...NO_FILTER, errorsOnly: true },
      };
      const wholeErrors = await show({ ...errors, ...sizes(Number.POSITIVE_INFINITY) });
      expect(await show({ ...errors, ...sizes(1) })).toEqual(wholeErrors);
    }
  });
});
