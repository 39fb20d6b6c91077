// Session model → what `show` renders: rows plus per-turn summaries with cost.
import { buildWaterfall } from '../core/waterfall.js';
import { sessionHeaderOf } from '../core/session-header.js';
import { promptLabel } from '../core/labels.js';
import { costSession, sumCost } from '../core/session-cost.js';
import type { PriceTable } from '../core/pricing.js';
import type { SessionModel } from '../core/session-model.js';
import type { TurnSummary, WaterfallView } from './render/waterfall-view.js';

export function buildView(
  model: SessionModel,
  prices: PriceTable,
): { view: WaterfallView; unknownModels: string[] } {
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
  const turns: TurnSummary[] = model.turns.map((t) => ({
    index: t.index,
    label: promptLabel(t.promptText),
    startTime: t.startTime,
    endTime: t.endTime,
    endState: t.endState,
    inputTokens: t.tokens.input,
    outputTokens: t.tokens.output,
    costUsd: sumCost(t.responseKeys, costs.byResponse),
    rowIds: rowsOfTurn.get(t.index) ?? [],
  }));
  const known = turns.map((t) => t.costUsd).filter((c): c is number => c !== null);
  const header = sessionHeaderOf(model);
  const view: WaterfallView = {
    sessionId: model.sessionId,
    title:
      header?.title === null || header?.title === undefined
        ? `Session ${model.sessionId}`
        : `${header.title} (session ${model.sessionId})`,
    rows,
    turns,
    totals: {
      inputTokens: turns.reduce((s, t) => s + t.inputTokens, 0),
      outputTokens: turns.reduce((s, t) => s + t.outputTokens, 0),
      costUsd: known.length === 0 ? null : known.reduce((s, c) => s + c, 0),
    },
    warnings: model.warnings,
  };
  if (header !== null) view.header = header;
  return { view, unknownModels: costs.unknownModels };
}
