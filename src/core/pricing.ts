// Cost of an API response from a price table (config/pricing.json or --pricing).
// 5-minute and 1-hour cache writes are priced apart: 1-hour writes cost more,
// and Claude Code's own side calls use them.
import type { Usage } from './records.js';

export interface ModelPrice {
  match: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

export interface PriceTable {
  models: ModelPrice[];
}

const FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'] as const;

/** Validates a parsed price file; returns the problem as a sentence, or the table. */
export function validatePriceTable(value: unknown): PriceTable | string {
  if (
    typeof value !== 'object' ||
    value === null ||
    !Array.isArray((value as { models?: unknown }).models)
  ) {
    return 'expected an object with a "models" array';
  }
  const models: ModelPrice[] = [];
  for (const [i, m] of (value as { models: unknown[] }).models.entries()) {
    if (typeof m !== 'object' || m === null) return `models[${i}] is not an object`;
    const o = m as Record<string, unknown>;
    if (typeof o.match !== 'string' || o.match === '')
      return `models[${i}].match must be a non-empty string`;
    for (const f of FIELDS) {
      if (typeof o[f] !== 'number' || !Number.isFinite(o[f]) || (o[f] as number) < 0)
        return `models[${i}].${f} must be a non-negative number`;
    }
    models.push(o as unknown as ModelPrice);
  }
  return { models };
}

export function priceFor(table: PriceTable, model: string | null): ModelPrice | null {
  if (model === null) return null;
  let best: ModelPrice | null = null;
  for (const p of table.models) {
    if (model.startsWith(p.match) && (best === null || p.match.length > best.match.length))
      best = p;
  }
  return best;
}

/** USD, or null when the model has no price. */
export function costOf(
  table: PriceTable,
  model: string | null,
  usage: Usage | null,
): number | null {
  if (usage === null) return 0;
  const p = priceFor(table, model);
  if (p === null) return null;
  const write5m = Math.max(0, usage.cacheWrite - usage.cacheWrite1h);
  const micro =
    usage.input * p.input +
    usage.output * p.output +
    usage.cacheRead * p.cacheRead +
    write5m * p.cacheWrite5m +
    usage.cacheWrite1h * p.cacheWrite1h;
  return micro / 1_000_000;
}
