/** `LoopRun` recovery tracking: after a surfaced verdict, did the run leave the loop, repeat it, or end? */
import { describe, expect, it } from 'vitest';
import { hashToolOutcome, LoopRun, resolveLoopDetectionConfig } from '../../src/engine-entry.js';
import { engineCalls } from '../helpers/engine-calls.js';

const { digester, read, grep: fresh } = engineCalls();
const W3C5 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 3, criticalThreshold: 5 });

function runWith(recoveryWindow: number) {
  const run = new LoopRun({ config: W3C5, policy: { recoveryWindow } });
  const call = (signature = read()) => {
    const check = run.judge(signature);
    if (!check.blocked)
      run.complete(
        signature,
        undefined,
        hashToolOutcome(digester(), { toolName: signature.toolName, params: {}, result: 'same' }),
      );
    return check;
  };
  return { run, call };
}

describe('LoopRun recovery', () => {
  it('a call of the loop after a warning settles it as repeated', () => {
    const { run, call } = runWith(3);
    [1, 2, 3].forEach(() => call());
    expect(call().emit).toBe(true); // the warning, with three calls before it
    const next = call(); // suppressed warning, same loop
    expect(next.recovery).toEqual({
      outcome: 'repeated',
      level: 'warning',
      detector: 'generic_repeat',
      toolName: 'read',
    });
    expect(run.recovery).toEqual({ recovered: 0, repeated: 1, runEnded: 0 });
  });

  it('window calls without a member settle it as recovered, on the last of them', () => {
    const { run, call } = runWith(3);
    [1, 2, 3, 4].forEach(() => call());
    expect(call(fresh(1)).recovery).toBeUndefined();
    expect(call(fresh(2)).recovery).toBeUndefined();
    expect(call(fresh(3)).recovery?.outcome).toBe('recovered');
    expect(call(fresh(4)).recovery).toBeUndefined();
    expect(run.recovery).toEqual({ recovered: 1, repeated: 0, runEnded: 0 });
  });

  it('a block followed by the same call counts as repeated; a run that ends first as run_ended', () => {
    const { run, call } = runWith(5);
    [1, 2, 3, 4, 5].forEach(() => call());
    const block = call();
    expect(block.blocked).toBe(true);
    expect(call().recovery).toMatchObject({ outcome: 'repeated', level: 'critical' });
    call(fresh(1));
    expect(run.end()).toMatchObject({ outcome: 'run_ended', level: 'critical' });
    expect(run.end()).toBeUndefined();
    // The warning at the 4th call was repeated by the 5th, the block at the 6th by the 7th.
    expect(run.recovery).toEqual({ recovered: 0, repeated: 2, runEnded: 1 });
  });

  it('is off with recoveryWindow 0 (the engine default)', () => {
    const { run, call } = runWith(0);
    [1, 2, 3, 4].forEach(() => call());
    expect(run.end()).toBeUndefined();
    expect(run.recovery).toEqual({ recovered: 0, repeated: 0, runEnded: 0 });
  });
});
