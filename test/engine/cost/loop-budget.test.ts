/** Loop budgets: which budget a loop passed, and the escalated verdict. */
import { describe, expect, it } from 'vitest';
import { escalatedVerdict, passedBudget } from '../../../src/engine/cost/loop-budget.js';
import type { LoopVerdict } from '../../../src/engine/types.js';

const warning: LoopVerdict = {
  level: 'warning',
  detector: 'ping_pong',
  count: 7,
  message: 'WARNING: …',
  warningKey: 'pingpong:a|b',
};

describe('loop budgets', () => {
  it('passes at the budget, tokens first; unknown tokens never pass a token budget', () => {
    expect(passedBudget({ tokens: 100 }, { wastedTokens: 100, wastedMs: 0 })).toBe('tokens');
    expect(passedBudget({ tokens: 100 }, { wastedTokens: 99, wastedMs: 1e9 })).toBeUndefined();
    expect(passedBudget({ tokens: 100 }, { wastedMs: 1e9 })).toBeUndefined();
    expect(passedBudget({ tokens: 100, ms: 10 }, { wastedTokens: 500, wastedMs: 50 })).toBe('tokens');
    expect(passedBudget({ tokens: 100, ms: 10 }, { wastedTokens: 5, wastedMs: 10 })).toBe('time');
    expect(passedBudget({}, { wastedTokens: 5, wastedMs: 10 })).toBeUndefined();
  });

  it('an escalated verdict is a critical with the same detector, count and key', () => {
    const critical = escalatedVerdict(warning, 'read', {
      kind: 'time',
      budget: { ms: 1000 },
      waste: { wastedMs: 1200 },
    });
    expect(critical).toMatchObject({ level: 'critical', detector: 'ping_pong', count: 7, warningKey: 'pingpong:a|b' });
    expect(critical.message).toBe(
      'CRITICAL: read is in a loop (ping_pong, count 7) that has burned 1200 ms, past the budget of 1000 ms. Session execution blocked to prevent resource waste.',
    );
  });
});
