import { describe, expect, it } from 'vitest';
import { promptLabel, toolLabel } from '../../../../src/core/spans/labels.js';
import {
  costOf,
  priceFor,
  validatePriceTable,
  type PriceTable,
} from '../../../../src/core/cost/pricing.js';
import prices from '../../../../config/pricing.json' with { type: 'json' };

describe('labels', () => {
  it('start with the tool name and name the subject', () => {
    expect(toolLabel('Bash', { command: 'npm test\n  --watch' }, '/p')).toBe(
      'Bash: npm test --watch',
    );
    expect(toolLabel('Read', { file_path: '/p/src/auth.ts' }, '/p')).toBe('Read: src/auth.ts');
    expect(toolLabel('Read', { file_path: '/elsewhere/x.ts' }, '/p')).toBe('Read: /elsewhere/x.ts');
    expect(toolLabel('Agent', { description: 'Map auth module', prompt: 'long' }, null)).toBe(
      'Agent: Map auth module',
    );
    expect(toolLabel('TodoWrite', { todos: [1, 2, 3] }, null)).toBe('TodoWrite: 3 todos');
    expect(toolLabel('mcp__github__get_issue', { owner: 'me', number: 3 }, null)).toBe(
      'mcp__github__get_issue: me',
    );
    expect(toolLabel('ExitPlanMode', {}, null)).toBe('ExitPlanMode');
  });

  it('are at most 120 characters', () => {
    const label = toolLabel('Bash', { command: 'echo '.repeat(100) }, null);
    expect(label.length).toBeLessThanOrEqual(120);
    expect(label).toMatch(/^Bash: echo echo .*echo …$/);
    // A token longer than the room left is dropped whole, never cut in half.
    expect(toolLabel('Bash', { command: `curl -H ${'A'.repeat(200)}` }, null)).toBe(
      'Bash: curl -H …',
    );
  });

  it('name slash commands by their command', () => {
    expect(
      promptLabel(
        '<command-message>compact</command-message>\n<command-name>/compact</command-name>',
      ),
    ).toBe('/compact');
    expect(promptLabel(null)).toBe('(no prompt text)');
  });
});

describe('pricing', () => {
  const table = validatePriceTable(prices) as PriceTable;

  it('validates the bundled table and rejects bad ones with a reason', () => {
    expect(typeof table).toBe('object');
    expect(validatePriceTable({ models: [{ match: 'x', input: -1 }] })).toMatch(
      /models\[0\]\.input/,
    );
    expect(validatePriceTable([])).toMatch(/models/);
  });

  it('matches the longest prefix, date suffixes included', () => {
    expect(priceFor(table, 'claude-opus-4-5-20251101')?.input).toBe(5);
    expect(priceFor(table, 'claude-opus-4-20250514')?.input).toBe(15);
    expect(priceFor(table, 'claude-haiku-4-5-20251001')?.input).toBe(1);
    expect(priceFor(table, 'deepseek-v4-flash')).toBeNull();
  });

  it('prices 1-hour cache writes above 5-minute writes', () => {
    const base = { input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000, cacheWrite1h: 0 };
    const fiveMin = costOf(table, 'claude-sonnet-4-5', base);
    const oneHour = costOf(table, 'claude-sonnet-4-5', { ...base, cacheWrite1h: 1_000_000 });
    expect(fiveMin).toBeCloseTo(3.75, 6);
    expect(oneHour).toBeCloseTo(6, 6);
  });

  it('costs a response from all five token kinds', () => {
    const usage = {
      input: 1000,
      output: 2000,
      cacheRead: 100_000,
      cacheWrite: 10_000,
      cacheWrite1h: 4000,
    };
    // sonnet: 1000*3 + 2000*15 + 100000*0.3 + 6000*3.75 + 4000*6, per million
    expect(costOf(table, 'claude-sonnet-4-5', usage)).toBeCloseTo(
      (3000 + 30000 + 30000 + 22500 + 24000) / 1e6,
      9,
    );
    expect(costOf(table, 'unknown-model', usage)).toBeNull();
    expect(costOf(table, 'unknown-model', null)).toBe(0);
  });
});
