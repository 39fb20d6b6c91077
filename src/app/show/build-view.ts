// Session model → what `show` renders: rows plus per-turn summaries with cost.
import { buildWaterfall } from '../../core/view/waterfall.js';
import type { SessionHeader } from '../../core/view/session-header.js';
import { promptLabel } from '../../core/spans/labels.js';
import { costSession, sumCost } from '../../core/cost/session-cost.js';
import type { PriceTable } from '../../core/cost/pricing.js';
import type { SessionModel } from '../../core/model/session-model.js';
import type { ReadWarning, WaterfallRow } from '../../core/view/waterfall-row.js';
import type { TurnSummary, WaterfallView } from './render/waterfall-view.js';

/** Rows and turn summaries of the turns from `firstTurn` on (a segment's own turns). */
export function viewPart(
  model: SessionModel,
  prices: PriceTable,
  firstTurn: number,
): {
  rows: WaterfallRow[];
  turns: TurnSummary[];
  unknownModels: string[];
  byResponse: Map<string, number | null>;
} {
  const rows = buildWaterfall(model);
  const costs = costSession(model, prices);
  // Rows bucketed by turn once: a filter per turn is quadratic on long sessions.
  const rowsOfTurn = new Map<number, string[]>();
  for (const row of rows) {
    // An agent no call spawned has a row of its own: its id is the agent's key.
    const turn = model.tools.get(row.id)?.turnIndex ?? model.agents.get(row.id)?.turnIndex ?? -1;
    const ids = rowsOfTurn.get(turn);
    if (ids === undefined) rowsOfTurn.set(turn, [row.id]);
    else ids.push(row.id);
  }
  const turns: TurnSummary[] = model.turns.slice(firstTurn).map((t) => ({
    index: t.index,
    label: promptLabel(t.promptText),
    startTime: t.startTime,
    endTime: t.endTime,
    endState: t.endState,
    inputTokens: t.tokens.input,
    outputTokens: t.tokens.output,
    costUsd: sumCost(t.responseKeys, costs.byResponse),
    rowIds: rowsOfTurn.get(t.index) ?? [],
    ...(t.teammateMessages === undefined ? {} : { teammateMessages: t.teammateMessages }),
  }));
  return { rows, turns, unknownModels: costs.unknownModels, byResponse: costs.byResponse };
}

/** The view from its parts: title, totals and header as the whole session gives them. */
export function assembleView(
  sessionId: string,
  header: SessionHeader | null,
  rows: WaterfallRow[],
  turns: TurnSummary[],
  warnings: ReadWarning[],
): WaterfallView {
  const known = turns.map((t) => t.costUsd).filter((c): c is number => c !== null);
  const view: WaterfallView = {
    sessionId,
    title:
      header?.title === null || header?.title === undefined
        ? `Session ${sessionId}`
        : `${header.title} (session ${sessionId})`,
    rows,
    turns,
    totals: {
      inputTokens: turns.reduce((s, t) => s + t.inputTokens, 0),
      outputTokens: turns.reduce((s, t) => s + t.outputTokens, 0),
      costUsd: known.length === 0 ? null : known.reduce((s, c) => s + c, 0),
    },
    warnings,
  };
  if (header !== null) view.header = header;
  return view;
}
