// Golden costs of the bundled model table (config/pricing.json), each computed by hand from the
// figures of the page the entry cites, written here as literal arithmetic (USD per million
// tokens × tokens), not read from the table under test. Checked 2026-12-01.
import { describe, expect, it } from 'vitest';
import {
  contextWindowOf,
  costOf,
  priceFor,
  validatePriceTable,
  type PriceTable,
} from '../../../../src/core/cost/pricing.js';
import type { Usage } from '../../../../src/core/transcript/records.js';
import prices from '../../../../config/pricing.json' with { type: 'json' };

const table = validatePriceTable(prices) as PriceTable;

/** 1,000 input, 2,000 output, 100,000 cache reads, 10,000 cache writes of which 4,000 1-hour. */
const MIXED: Usage = {
  input: 1000,
  output: 2000,
  cacheRead: 100_000,
  cacheWrite: 10_000,
  cacheWrite1h: 4000,
};

describe('bundled model table: golden costs from the cited pages', () => {
  it('loads and names a source and a check date on every entry', () => {
    expect(typeof table).toBe('object');
    for (const m of prices.models) {
      expect(m.source, m.match).toMatch(/^https:\/\//);
      expect(m.checked, m.match).toMatch(/^2026-1[12]/);
    }
  });

  it('claude-opus-5 (models/opus-5/overview: $5 in, $25 out, $6.25 5m, $10 1h, $0.50 read)', () => {
    const hand = (1000 * 5 + 2000 * 25 + 100_000 * 0.5 + 6000 * 6.25 + 4000 * 10) / 1e6;
    expect(hand).toBeCloseTo(0.1825, 12);
    expect(costOf(table, 'claude-opus-5', MIXED)).toBeCloseTo(hand, 12);
  });

  it('claude-opus-5-5 (models/opus-5-5/overview: $4 in, $20 out, $5 5m, $8 1h, $0.20 read = 0.05x input)', () => {
    expect(0.2 / 4).toBeCloseTo(0.05, 12);
    const hand = (1000 * 4 + 2000 * 20 + 100_000 * 0.2 + 6000 * 5 + 4000 * 8) / 1e6;
    expect(hand).toBeCloseTo(0.126, 12);
    expect(costOf(table, 'claude-opus-5-5', MIXED)).toBeCloseTo(hand, 12);
    // The 0.1x cache read a multiplier would give costs more: the table must not use it.
    const atTenth = (1000 * 4 + 2000 * 20 + 100_000 * 0.4 + 6000 * 5 + 4000 * 8) / 1e6;
    expect(costOf(table, 'claude-opus-5-5', MIXED)).not.toBeCloseTo(atTenth, 6);
  });

  it('a fast-mode response (build-with-claude/fast-mode, Opus 4.6: $30 in / $150 out up to 200K, $60 / $225 above)', () => {
    const fast: Usage = {
      input: 1000,
      output: 2000,
      cacheRead: 0,
      cacheWrite: 0,
      cacheWrite1h: 0,
      speed: 'fast',
    };
    expect(costOf(table, 'claude-opus-4-6', fast)).toBeCloseTo((1000 * 30 + 2000 * 150) / 1e6, 12);
    const standard = { ...fast, speed: 'standard' };
    expect(costOf(table, 'claude-opus-4-6', standard)).toBeCloseTo(
      (1000 * 5 + 2000 * 25) / 1e6,
      12,
    );
    const long = { ...fast, input: 250_000 };
    expect(costOf(table, 'claude-opus-4-6', long)).toBeCloseTo(
      (250_000 * 60 + 2000 * 225) / 1e6,
      12,
    );
  });

  it('a fast-mode response with cache tokens has no cost: no fast cache rate is published as a figure', () => {
    expect(costOf(table, 'claude-opus-4-6', { ...MIXED, speed: 'fast' })).toBeNull();
    // A model without fast rates is not priced at its standard rates either.
    expect(costOf(table, 'claude-sonnet-5', { ...MIXED, speed: 'fast' })).toBeNull();
  });

  it('a 1-hour cache write (pricing page, Haiku 4.5: $2 1h, $1.25 5m)', () => {
    const oneHour: Usage = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 1_000_000,
      cacheWrite1h: 1_000_000,
    };
    expect(costOf(table, 'claude-haiku-4-5-20251001', oneHour)).toBeCloseTo(
      (1_000_000 * 2) / 1e6,
      12,
    );
    const fiveMin = { ...oneHour, cacheWrite1h: 0 };
    expect(costOf(table, 'claude-haiku-4-5-20251001', fiveMin)).toBeCloseTo(
      (1_000_000 * 1.25) / 1e6,
      12,
    );
  });

  it('Haiku 5.5 prices a prompt over 100,000 tokens in its upper band, output included (models/haiku-5-5/overview)', () => {
    const short: Usage = {
      input: 50_000,
      output: 1000,
      cacheRead: 0,
      cacheWrite: 0,
      cacheWrite1h: 0,
    };
    expect(costOf(table, 'claude-haiku-5-5', short)).toBeCloseTo(
      (50_000 * 0.1 + 1000 * 0.5) / 1e6,
      12,
    );
    const long = { ...short, input: 150_000 };
    expect(costOf(table, 'claude-haiku-5-5', long)).toBeCloseTo(
      (150_000 * 0.5 + 1000 * 2.5) / 1e6,
      12,
    );
  });

  it('matches ids exactly or by date snapshot; a new id stays unpriced', () => {
    expect(priceFor(table, 'claude-opus-4-1-20250805')?.match).toBe('claude-opus-4-1');
    expect(priceFor(table, 'claude-opus-4-20250514')?.match).toBe('claude-opus-4');
    expect(priceFor(table, 'claude-opus-5-5[1m]')?.match).toBe('claude-opus-5-5');
    expect(priceFor(table, 'claude-opus-5-6')).toBeNull();
    expect(costOf(table, 'claude-opus-5-6', MIXED)).toBeNull();
  });

  it('gives context windows from the pages, [1m] as 1M, and null where the observed rule decides', () => {
    expect(contextWindowOf(table, 'claude-opus-5')).toBe(1_000_000);
    expect(contextWindowOf(table, 'claude-opus-4-8')).toBe(1_000_000);
    expect(contextWindowOf(table, 'claude-haiku-4-5-20251001')).toBe(200_000);
    expect(contextWindowOf(table, 'claude-sonnet-4-5-20250929')).toBeNull();
    expect(contextWindowOf(table, 'claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(contextWindowOf(table, 'deepseek-v4-flash')).toBeNull();
  });

  it('accepts a table in the old five-rate shape and rejects a bad window or fast block', () => {
    const old = {
      models: [
        { match: 'x', input: 1, output: 2, cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: 2 },
      ],
    };
    expect(typeof validatePriceTable(old)).toBe('object');
    const first = old.models[0];
    expect(validatePriceTable({ models: [{ ...first, contextWindow: -5 }] })).toMatch(
      /contextWindow/,
    );
    expect(validatePriceTable({ models: [{ ...first, fast: { input: 1 } }] })).toMatch(
      /fast\.output/,
    );
    expect(validatePriceTable({ models: [{ ...first, cacheRead: undefined }] })).toMatch(
      /cacheRead/,
    );
  });
});
