// Claude Code's own count of a session's cost (its `cost-state` record, 2.1.2xx)
// against ccotel's: they should agree, and a gap says a price, a response or a
// sub-agent file is missing on one side. One warning per session, at the last
// cost-state line (the one that counts: each one is the running total).
import type { ReadWarning } from '../view/waterfall-row.js';
import type { SessionState } from '../session/state.js';
import type { SessionModel } from '../model/session-model.js';
import { sumCost } from './session-cost.js';

/** Gaps up to this share of Claude Code's total are rounding and price-table drift. */
const TOLERANCE = 0.01;

/** A segment's cost added to the running total; null while no response had a price. */
export function addSegmentCost(
  total: number | null,
  model: SessionModel,
  byResponse: Map<string, number | null>,
): number | null {
  const segment = sumCost(model.responses.keys(), byResponse);
  return segment === null ? total : (total ?? 0) + segment;
}

/** The warning of a session read whole: its model's cost-state against all its responses. */
export function sessionCostWarning(
  model: SessionModel,
  byResponse: Map<string, number | null>,
): ReadWarning | null {
  return costStateWarning(model.costState ?? null, sumCost(model.responses.keys(), byResponse));
}

const usd = (x: number): string => `$${x.toPrecision(4).replace(/\.?0+$/, '')}`;

/**
 * The warning the session's last cost-state earns against ccotel's own total
 * (`ownCost`, null when no response had a price): none when they agree within
 * 1 %, when there is none, or when ccotel priced nothing (its own note says so).
 */
export function costStateWarning(
  costState: SessionState['costState'],
  ownCost: number | null,
): ReadWarning | null {
  if (costState === null) return null;
  const { value, file, line } = costState;
  const at = { file, line };
  if (value.hasUnknownModelCost)
    return {
      ...at,
      reason:
        `cost-state: Claude Code has no price for a model it used (${value.models.join(', ') || 'unnamed'}), ` +
        'so its total is not compared with ccotel’s',
    };
  const theirs = value.totalCostUSD;
  if (theirs === null || ownCost === null) return null;
  const gap = Math.abs(ownCost - theirs);
  if (gap <= TOLERANCE * theirs) return null;
  const share =
    theirs > 0
      ? ` (${((gap / theirs) * 100).toFixed(1)} % ${ownCost > theirs ? 'more' : 'less'})`
      : '';
  return {
    ...at,
    reason: `cost-state: Claude Code counts the session at ${usd(theirs)}, ccotel at ${usd(ownCost)}${share}`,
  };
}
