/** `identical_call_budget`: identical calls in a row, and those whose results gain almost nothing. */
import { describe, expect, it } from 'vitest';
import { EngineHarness } from '../../helpers/engine-harness.js';

const BUDGET = {
  enabled: true,
  identicalCallBudget: 6,
  lowGainCallBudget: 3,
  detectors: { identicalCallBudget: true },
} as const;
const DATE = { command: 'date +%S' };

describe('identical_call_budget', () => {
  it('OpenClaw #112447: `date +%S` whose result changes every time is blocked after the low-gain budget', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 3; i += 1) expect(h.run('exec', DATE, { result: `${10 + i}\n` }).blocked).toBe(false);
    const checked = h.check('exec', DATE);
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'identical_call_budget',
      count: 3,
      loopSignatures: [h.argsHash('exec', DATE)],
    });
    expect(checked.verdict!.message).toContain('nearly the same');
  });

  it('generic_repeat never sees it: no two of those results are identical', async () => {
    const h = await EngineHarness.create({ enabled: true, warningThreshold: 3, criticalThreshold: 4 });
    for (let i = 0; i < 30; i += 1) expect(h.run('exec', DATE, { result: `${i % 60}\n` }).blocked).toBe(false);
  });

  it('calls whose results bring new content spend only the plain budget', async () => {
    const h = await EngineHarness.create(BUDGET);
    const page = (i: number) => ({
      result: `lines ${i}: ${['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'][i]} function body returns value`,
    });
    for (let i = 0; i < 6; i += 1) expect(h.run('scroll_down', {}, page(i)).blocked).toBe(false);
    const checked = h.check('scroll_down', {});
    expect(checked.verdict).toMatchObject({ detector: 'identical_call_budget', count: 6 });
    expect(checked.verdict!.message).toContain('whatever the results');
  });

  it('any other call in between ends the streak', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 2; i += 1) h.run('exec', DATE, { result: `${i}\n` });
    h.run('read', { path: '/x' }, { result: 'x' });
    h.run('exec', DATE, { result: '7\n' });
    expect(h.detect('exec', DATE)).toBeUndefined();
  });

  it('blocked calls keep the budget spent', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 3; i += 1) h.run('exec', DATE, { result: `${i}\n` });
    expect(h.run('exec', DATE, { result: '3\n' }).blocked).toBe(true);
    expect(h.run('exec', DATE, { result: '4\n' }).verdict).toMatchObject({
      detector: 'identical_call_budget',
      count: 4,
    });
  });

  it('is off by default', async () => {
    const h = await EngineHarness.create({ enabled: true, identicalCallBudget: 2, lowGainCallBudget: 2 });
    for (let i = 0; i < 9; i += 1) h.run('exec', DATE, { result: `${i}\n` });
    expect(h.detect('exec', DATE)).toBeUndefined();
  });
});
