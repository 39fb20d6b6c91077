// Cost of every response of a session, and roll-ups over groups of responses
// (an agent, a turn). A group whose responses all lack a price has no cost.
import { costOf, priceFor, type PriceTable } from './pricing.js';
import type { Usage } from '../transcript/records.js';
import type { SessionModel } from '../model/session-model.js';

export interface SessionCosts {
  byResponse: Map<string, number | null>;
  /** Models seen without a price (each named once). */
  unknownModels: string[];
}

export function costSession(model: SessionModel, table: PriceTable): SessionCosts {
  const byResponse = new Map<string, number | null>();
  const unknown = new Set<string>();
  for (const r of model.responses.values()) {
    const cost = costOf(table, r.model, r.usage);
    if (cost === null && r.model !== null) unknown.add(unpricedName(table, r.model, r.usage));
    byResponse.set(r.key, cost);
  }
  return { byResponse, unknownModels: [...unknown].sort() };
}

/** How a response without a cost is named in the "no price for model …" note. */
function unpricedName(table: PriceTable, model: string, usage: Usage | null): string {
  if (priceFor(table, model) === null) return model;
  // The model is known but a rate this response needs is not published as a figure.
  return usage?.speed === 'fast'
    ? `${model} in fast mode (with the token kinds it used)`
    : `${model} (a rate its responses need)`;
}

export function sumCost(
  keys: Iterable<string>,
  byResponse: Map<string, number | null>,
): number | null {
  let total: number | null = null;
  for (const key of keys) {
    const c = byResponse.get(key);
    if (c !== undefined && c !== null) total = (total ?? 0) + c;
  }
  return total;
}
