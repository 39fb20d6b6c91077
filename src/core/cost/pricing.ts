// The model table (config/pricing.json or --pricing): per model id its context
// window and its prices, each written out as published (never derived by a
// multiplier: cache reads of claude-opus-5-5 cost 0.05x input, of Fable 5.1
// 0.025x). 5-minute and 1-hour cache writes are priced apart; some models price
// long prompts higher (longPrompt) and fast mode (`usage.speed: "fast"`) apart.
import type { Usage } from '../transcript/records.js';

/** USD per million tokens. A missing cache rate is unknown, not zero. */
export interface Rates {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** Rates for a request whose prompt (input + cache reads + writes) exceeds aboveTokens. */
  longPrompt?: Rates & { aboveTokens: number };
}

export interface ModelPrice extends Rates {
  match: string;
  /** Tokens; null or absent: the observed rule decides (a long-context beta, unknown). */
  contextWindow?: number | null;
  fast?: Rates;
}

export interface PriceTable {
  models: ModelPrice[];
}

const BASE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h'] as const;
const REQUIRED = new Set(['input', 'output']);

function validRate(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** Problem with one rates object, as a sentence, or null. Entries of a plain table need all five. */
function validateRates(o: Record<string, unknown>, at: string, allFive: boolean): string | null {
  for (const f of BASE_FIELDS) {
    const required = allFive || REQUIRED.has(f);
    if (o[f] === undefined && !required) continue;
    if (!validRate(o[f])) return `${at}.${f} must be a non-negative number`;
  }
  if (o.longPrompt !== undefined) {
    const lp = o.longPrompt;
    if (typeof lp !== 'object' || lp === null) return `${at}.longPrompt is not an object`;
    const l = lp as Record<string, unknown>;
    if (!validRate(l.aboveTokens)) return `${at}.longPrompt.aboveTokens must be a number`;
    const inner = validateRates(l, `${at}.longPrompt`, allFive);
    if (inner !== null) return inner;
  }
  return null;
}

function validateEntry(m: unknown, i: number): string | null {
  if (typeof m !== 'object' || m === null) return `models[${i}] is not an object`;
  const o = m as Record<string, unknown>;
  if (typeof o.match !== 'string' || o.match === '')
    return `models[${i}].match must be a non-empty string`;
  const base = validateRates(o, `models[${i}]`, true);
  if (base !== null) return base;
  const w = o.contextWindow;
  if (w !== undefined && w !== null && (!validRate(w) || (w as number) < 1))
    return `models[${i}].contextWindow must be a positive number or null`;
  if (o.fast !== undefined) {
    if (typeof o.fast !== 'object' || o.fast === null) return `models[${i}].fast is not an object`;
    return validateRates(o.fast as Record<string, unknown>, `models[${i}].fast`, false);
  }
  return null;
}

/** Validates a parsed table; returns the problem as a sentence, or the table. */
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
    const problem = validateEntry(m, i);
    if (problem !== null) return problem;
    models.push(m as ModelPrice);
  }
  return { models };
}

/** `claude-opus-5-5[1m]` → the id and whether it names the 1M variant. */
export function splitModelId(model: string): { id: string; oneMillion: boolean } {
  const bracket = /\[([^\]]*)\]$/.exec(model);
  if (bracket === null) return { id: model, oneMillion: false };
  return { id: model.slice(0, bracket.index), oneMillion: bracket[1]?.toLowerCase() === '1m' };
}

const SNAPSHOT = /^-\d{8}$/;

/**
 * The entry for a model id: one equal to it, or to it less a date snapshot
 * suffix (claude-opus-4-1-20250805 → claude-opus-4-1). A looser prefix would
 * price a new claude-opus-5-6 as claude-opus-5: an unknown id stays unknown.
 */
export function priceFor(table: PriceTable, model: string | null): ModelPrice | null {
  if (model === null) return null;
  const { id } = splitModelId(model);
  let found: ModelPrice | null = null;
  for (const p of table.models) {
    if (id === p.match) return p;
    if (found === null && id.startsWith(p.match) && SNAPSHOT.test(id.slice(p.match.length)))
      found = p;
  }
  return found;
}

/** The table's window for a model; null when unknown (the observed rule applies). */
export function contextWindowOf(table: PriceTable, model: string | null): number | null {
  if (model === null) return null;
  if (splitModelId(model).oneMillion) return 1_000_000;
  return priceFor(table, model)?.contextWindow ?? null;
}

/** The table as the assembler reads it (context-window.ts WindowOf). */
export function windowsOf(table: PriceTable): (model: string | null) => number | null {
  return (model) => contextWindowOf(table, model);
}

/** The rates that apply to one response: fast mode, then the prompt-length band. */
function ratesFor(p: ModelPrice, usage: Usage): Rates | null {
  let rates: Rates = p;
  if (usage.speed === 'fast') {
    if (p.fast === undefined) return null;
    rates = p.fast;
  }
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  if (rates.longPrompt !== undefined && prompt > rates.longPrompt.aboveTokens)
    rates = rates.longPrompt;
  return rates;
}

/** tokens × rate, or null when tokens are billed at a rate the table does not give. */
function part(tokens: number, rate: number | undefined): number | null {
  if (tokens === 0) return 0;
  return rate === undefined ? null : tokens * rate;
}

/**
 * priceFor, remembered per table and model id: costOf runs for every response
 * and each lookup walked the table with a regex.
 * Keyed by the models array, which a validated table never changes.
 */
const pricesSeen = new WeakMap<ModelPrice[], Map<string, ModelPrice | null>>();

function knownPriceFor(table: PriceTable, model: string): ModelPrice | null {
  let seen = pricesSeen.get(table.models);
  if (seen === undefined) {
    seen = new Map();
    pricesSeen.set(table.models, seen);
  }
  let p = seen.get(model);
  if (p === undefined) {
    p = priceFor(table, model);
    // Model ids are few; the bound only guards a table fed odd input.
    if (seen.size < 1000) seen.set(model, p);
  }
  return p;
}

/** USD, or null when the model (or a rate the response needs) has no price. */
export function costOf(
  table: PriceTable,
  model: string | null,
  usage: Usage | null,
): number | null {
  if (usage === null) return 0;
  const p = model === null ? null : knownPriceFor(table, model);
  if (p === null) return null;
  const rates = ratesFor(p, usage);
  if (rates === null) return null;
  const write5m = Math.max(0, usage.cacheWrite - usage.cacheWrite1h);
  const parts = [
    part(usage.input, rates.input),
    part(usage.output, rates.output),
    part(usage.cacheRead, rates.cacheRead),
    part(write5m, rates.cacheWrite5m),
    part(usage.cacheWrite1h, rates.cacheWrite1h),
  ];
  let micro = 0;
  for (const x of parts) {
    if (x === null) return null;
    micro += x;
  }
  return micro / 1_000_000;
}
