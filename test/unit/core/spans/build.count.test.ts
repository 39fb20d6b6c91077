// countTurnSpans (core/spans.ts) counts what buildTurnSpans builds, without
// building it: the same number for every turn of every fixture session, read
// whole and in segments of 7 records.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import type { SessionFiles } from '../../../../src/adapters/files/session-files.js';
import { readSession } from '../../../../src/app/read/read-session.js';
import { parseOptionsFor } from '../../../../src/app/read/session-spans.js';
import { sessionSpans } from '../../../support/whole-session.js';
import { windowsOf, type PriceTable } from '../../../../src/core/cost/pricing.js';
import { costSession } from '../../../../src/core/cost/session-cost.js';
import type { SpanOptions } from '../../../../src/core/spans/data.js';
import { buildTurnSpans, countTurnSpans } from '../../../../src/core/spans/build.js';
import { fixtureSessions } from '../../../support/fixture-sessions.js';

const fixturesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');
const OPTIONS: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };

let sessions: SessionFiles[] = [];
let prices: PriceTable;

beforeAll(async () => {
  prices = await loadPriceTable();
  sessions = await fixtureSessions(fixturesDir);
});

describe('countTurnSpans', () => {
  it('equals the number of spans built, turn by turn, on every fixture read whole', async () => {
    expect(sessions.length).toBeGreaterThan(20);
    let turns = 0;
    for (const files of sessions) {
      const { model, turns: built } = await sessionSpans(files, prices, OPTIONS);
      // sessionSpans gives every turn, in the model's order.
      expect(built.length).toBe(model.turns.length);
      model.turns.forEach((_turn, i) => {
        expect(countTurnSpans(model, i), `${files.mainFile} turn ${i}`).toBe(
          built[i]?.spans.length,
        );
        turns += 1;
      });
    }
    expect(turns).toBeGreaterThan(50);
  });

  it('equals the number of spans built in segments of 7 records (carried turns, late agents)', async () => {
    for (const files of sessions) {
      const read = readSession(files, {
        parse: parseOptionsFor(OPTIONS),
        windowOf: windowsOf(prices),
        segmentRecords: 7,
        forceRecords: Number.POSITIVE_INFINITY,
      });
      for await (const { model, firstTurn } of read.segments()) {
        const costs = costSession(model, prices);
        for (let i = firstTurn; i < model.turns.length; i += 1)
          expect(countTurnSpans(model, i), `${files.mainFile} turn ${i}`).toBe(
            buildTurnSpans(model, i, costs, OPTIONS).length,
          );
      }
    }
  });

  it('leaves out an agent with no start, as buildTurnSpans does', async () => {
    let checked = 0;
    for (const files of sessions) {
      const { model } = await sessionSpans(files, prices, OPTIONS);
      if (model.agents.size === 0) continue;
      // The same model with every agent unlinked and undated: no agent span is built.
      const agents = new Map(
        [...model.agents].map(([k, a]) => [k, { ...a, startTime: null, toolUseId: null }]),
      );
      const undated = { ...model, agents };
      const costs = costSession(undated, prices);
      undated.turns.forEach((_turn, i) => {
        expect(countTurnSpans(undated, i)).toBe(buildTurnSpans(undated, i, costs, OPTIONS).length);
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('is 0 for a turn index past the end', async () => {
    const files = sessions[0] as SessionFiles;
    const { model } = await sessionSpans(files, prices, OPTIONS);
    expect(countTurnSpans(model, model.turns.length)).toBe(0);
  });
});
