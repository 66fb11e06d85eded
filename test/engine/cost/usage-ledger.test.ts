/** `UsageLedger`: a run's reported tokens, and what it spent after a moment. */
import { describe, expect, it } from 'vitest';
import { UsageLedger } from '../../../src/engine/cost/usage-ledger.js';

describe('UsageLedger', () => {
  it('counts the tokens reported after a time; a report at that same ms counts as before', () => {
    const ledger = new UsageLedger(10);
    ledger.add(100, 10);
    ledger.add(20, 20);
    ledger.add(5, 30);
    expect(ledger.spent).toBe(125);
    expect(ledger.spentAfter(20)).toBe(5);
    expect(ledger.spentAfter(19)).toBe(25);
    expect(ledger.spentAfter(5)).toBe(125);
    expect(ledger.spentAfter(30)).toBe(0);
  });

  it('with reports dropped, a moment older than every held report counts the dropped ones as before', () => {
    const ledger = new UsageLedger(2);
    for (let t = 1; t <= 5; t += 1) ledger.add(10, t);
    expect(ledger.spent).toBe(50);
    expect(ledger.spentAfter(4)).toBe(10);
    expect(ledger.spentAfter(0)).toBe(20);
  });
});
