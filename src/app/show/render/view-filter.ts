// `show --errors / --turn N / --since / --until`: the part of a session to draw.
// Turns are kept or dropped whole (by index and start time, as `export --since`
// picks them); `errorsOnly` then keeps the failed calls and the agents they
// ran in, so every error is still shown inside its tree.
import type { WaterfallRow } from '../../../core/view/waterfall-row.js';
import { groupByTurn, type TurnSummary, type WaterfallView } from './waterfall-view.js';

export interface ViewFilter {
  errorsOnly: boolean;
  /** A turn index, as the views print it (from 0). */
  turn: number | null;
  /** Unix ms: turns that started at or after it. */
  since: number | null;
  /** Unix ms: turns that started before it. */
  until: number | null;
}

export const NO_FILTER: ViewFilter = { errorsOnly: false, turn: null, since: null, until: null };

export function isFiltering(f: ViewFilter): boolean {
  return f.errorsOnly || f.turn !== null || f.since !== null || f.until !== null;
}

export function filterView(view: WaterfallView, f: ViewFilter): WaterfallView {
  if (!isFiltering(f)) return view;
  const inTime = (t: number): boolean =>
    (f.since === null || t >= f.since) && (f.until === null || t < f.until);
  const kept: WaterfallRow[] = [];
  const turns: TurnSummary[] = [];
  for (const group of groupByTurn(view)) {
    const { turn } = group;
    if (turn !== null && (f.turn !== null ? turn.index !== f.turn : !inTime(turn.startTime)))
      continue;
    // Rows outside any turn have no index: a turn filter drops them.
    if (turn === null && f.turn !== null) continue;
    const rows = f.errorsOnly ? errorTrees(group.rows) : group.rows;
    const timed = turn === null ? rows.filter((r) => inTime(r.startTime)) : rows;
    if (f.errorsOnly && timed.length === 0 && turn?.endState !== 'api_error') continue;
    kept.push(...timed);
    if (turn !== null) {
      const ids = new Set(timed.map((r) => r.id));
      turns.push({ ...turn, rowIds: turn.rowIds.filter((id) => ids.has(id)) });
    }
  }
  const known = turns.map((t) => t.costUsd).filter((c): c is number => c !== null);
  return {
    ...view,
    rows: kept,
    turns,
    // Without turns there is nothing to re-add: the session totals stand.
    totals:
      view.turns.length === 0
        ? view.totals
        : {
            inputTokens: turns.reduce((s, t) => s + t.inputTokens, 0),
            outputTokens: turns.reduce((s, t) => s + t.outputTokens, 0),
            costUsd: known.length === 0 ? null : known.reduce((s, c) => s + c, 0),
          },
  };
}

/** Failed rows, and the agent rows on the way to one (with only those children). */
function errorTrees(rows: readonly WaterfallRow[]): WaterfallRow[] {
  const out: WaterfallRow[] = [];
  for (const row of rows) {
    const children = errorTrees(row.children);
    if (row.status === 'error' || children.length > 0) out.push({ ...row, children });
  }
  return out;
}

/** `errors only · turn 3 · 1 of 46 turns`, or null when nothing was filtered. */
export function describeFilter(
  f: ViewFilter,
  before: WaterfallView,
  after: WaterfallView,
): string | null {
  if (!isFiltering(f)) return null;
  const parts: string[] = [];
  if (f.errorsOnly) parts.push('errors only');
  if (f.turn !== null) parts.push(`turn ${f.turn}`);
  if (f.since !== null) parts.push(`since ${new Date(f.since).toISOString()}`);
  if (f.until !== null) parts.push(`until ${new Date(f.until).toISOString()}`);
  parts.push(`${after.turns.length} of ${before.turns.length} turns`);
  return parts.join(' · ');
}

/** A one-line reason why `--turn N` names no turn of the view, or null when it does. */
export function missingTurn(f: ViewFilter, view: WaterfallView): string | null {
  if (f.turn === null || view.turns.some((t) => t.index === f.turn)) return null;
  const indexes = view.turns.map((t) => t.index);
  const range =
    indexes.length === 0
      ? 'this session has no turns'
      : `this session has turns ${Math.min(...indexes)}–${Math.max(...indexes)}`;
  return `--turn: no turn ${f.turn}; ${range}`;
}
