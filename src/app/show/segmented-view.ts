// The terminal and HTML waterfalls of a session read in segments of whole
// turns, as export reads it: each segment's rows and turn summaries are kept,
// its records dropped. A transcript read whole is held whole; its rows are a
// fraction of that. The view equals buildView() of the whole session
// (test/unit/app/show/segmented-view.test.ts): the last segment's model carries the
// session-wide facts (info, the prior turns' prompt modes) the header needs.
import { windowsOf, type PriceTable } from '../../core/cost/pricing.js';
import { sessionHeaderOf } from '../../core/view/session-header.js';
import type { SessionModel } from '../../core/model/session-model.js';
import type { ReadWarning, WaterfallRow } from '../../core/view/waterfall-row.js';
import type { SessionFiles } from '../../adapters/files/session-files.js';
import type { TurnSummary, WaterfallView } from './render/waterfall-view.js';
import { assembleView, viewPart } from './build-view.js';
import { addSegmentCost, costStateWarning } from '../../core/cost/cost-state.js';
import { readSession, type SegmentReadOptions } from '../read/read-session.js';

export interface SegmentedView {
  view: WaterfallView;
  unknownModels: string[];
  /** Each unterminated file's last line number (the one-shot note names it). */
  unterminatedLine: Map<string, number>;
  /** Record types ccotel does not know: lines per type. */
  unknownRecordTypes: Record<string, number>;
}

export async function buildViewInSegments(
  files: SessionFiles,
  prices: PriceTable,
  sizes: Pick<SegmentReadOptions, 'segmentRecords' | 'forceRecords'> = {},
): Promise<SegmentedView> {
  const rows: WaterfallRow[] = [];
  const turns: TurnSummary[] = [];
  const derived: ReadWarning[] = [];
  const unknown = new Set<string>();
  let last: SessionModel | null = null;
  let ownCost: number | null = null;
  const read = readSession(files, { parse: {}, windowOf: windowsOf(prices), ...sizes });
  for await (const { model, firstTurn } of read.segments()) {
    const part = viewPart(model, prices, firstTurn);
    for (const row of part.rows) rows.push(row);
    for (const turn of part.turns) turns.push(turn);
    for (const m of part.unknownModels) unknown.add(m);
    derived.push(...(model.derivedWarnings ?? []));
    ownCost = addSegmentCost(ownCost, model, part.byResponse);
    last = model;
  }
  const model = last as SessionModel | null;
  if (model === null) throw new Error(`no segment read from ${files.mainFile}`);
  // Read warnings are the session's; linking warnings are derived per segment, after them.
  const costWarning = costStateWarning(read.state.costState, ownCost);
  if (costWarning !== null) derived.push(costWarning);
  const warnings = [...read.state.warnings, ...derived];
  return {
    view: assembleView(model.sessionId, sessionHeaderOf(model), rows, turns, warnings),
    unknownModels: [...unknown].sort(),
    unterminatedLine: read.unterminatedLine,
    unknownRecordTypes: model.unknownRecordTypes ?? {},
  };
}
