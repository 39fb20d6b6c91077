// cost-state (Claude Code's own total) against ccotel's: one warning past 1 %.
import { describe, expect, it } from 'vitest';
import { costStateWarning } from '../../../../src/core/cost/cost-state.js';

const at = (totalCostUSD: number | null, hasUnknownModelCost = false) => ({
  value: { totalCostUSD, hasUnknownModelCost, models: ['claude-haiku-4-5-20251001'] },
  file: 's.jsonl',
  line: 10,
});

describe('costStateWarning', () => {
  it('says nothing without a cost-state, within 1 %, or when ccotel priced nothing', () => {
    expect(costStateWarning(null, 1)).toBeNull();
    expect(costStateWarning(at(1), 1.0099)).toBeNull();
    expect(costStateWarning(at(1), 0.9901)).toBeNull();
    expect(costStateWarning(at(1), null)).toBeNull();
    expect(costStateWarning(at(null), 1)).toBeNull();
  });

  it('warns at the cost-state line past 1 %, either way', () => {
    expect(costStateWarning(at(0.0085), 0.009368)).toEqual({
      file: 's.jsonl',
      line: 10,
      reason:
        'cost-state: Claude Code counts the session at $0.0085, ccotel at $0.009368 (10.2 % more)',
    });
    expect(costStateWarning(at(2), 1)?.reason).toBe(
      'cost-state: Claude Code counts the session at $2, ccotel at $1 (50.0 % less)',
    );
    expect(costStateWarning(at(0), 0.5)?.reason).toBe(
      'cost-state: Claude Code counts the session at $0, ccotel at $0.5',
    );
  });

  it('an unknown model cost is said instead of a comparison', () => {
    expect(costStateWarning(at(1, true), 1)?.reason).toBe(
      'cost-state: Claude Code has no price for a model it used (claude-haiku-4-5-20251001), so its total is not compared with ccotel’s',
    );
  });
});
