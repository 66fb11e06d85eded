/** `LoopRun`: one run's history, suppression and post-compaction guard, with its run id and config bound. */
import { describe, expect, it } from 'vitest';
import { LoopRun, resolveLoopDetectionConfig, ToolCallHistory } from '../../src/engine-entry.js';
import { engineCalls } from '../helpers/engine-calls.js';

const { read, readResult: ok } = engineCalls();
const W2C3 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, criticalThreshold: 3 });

describe('LoopRun', () => {
  it('judge records a call; a blocked call is recorded as a loop veto that extends the streak', () => {
    const run = new LoopRun({ config: W2C3 });
    const checks = [1, 2, 3, 4].map(() => {
      const check = run.judge(read());
      if (!check.blocked) run.complete(read(), undefined, ok());
      return check;
    });
    expect(checks.map((c) => c.verdict?.level ?? 'none')).toEqual(['none', 'none', 'warning', 'critical']);
    expect(run.records().length).toBe(4);
    expect(run.records().at(-1)).toMatchObject({ toolName: 'read', outcomeKind: 'tool-loop-veto' });
    expect(run.records().at(-1)!.resultHash).toBeUndefined();
    const next = run.judge(read());
    expect(next.blocked).toBe(true);
    // The veto is anchored by the three identical outcomes before it: 3 + 1.
    expect(next.verdict).toMatchObject({ detector: 'generic_repeat', count: 4 });
  });

  it('vetoesExtendStreak off: a blocked call leaves the history as it was, the count stays put', () => {
    const config = resolveLoopDetectionConfig({
      enabled: true,
      warningThreshold: 2,
      criticalThreshold: 3,
      detectors: { vetoesExtendStreak: false },
    });
    const run = new LoopRun({ config });
    for (let i = 0; i < 3; i += 1) {
      run.judge(read());
      run.complete(read(), undefined, ok());
    }
    expect(run.judge(read()).verdict).toMatchObject({ detector: 'generic_repeat', count: 3 });
    expect(run.records().length).toBe(3);
    expect(run.judge(read()).verdict).toMatchObject({ detector: 'generic_repeat', count: 3 });
  });

  it('a call judged after it ran (alreadyRan) is recorded whatever the verdict', () => {
    const run = new LoopRun({ config: W2C3 });
    for (let i = 0; i < 3; i += 1) run.complete(read(), undefined, ok()); // outcomes appended as complete records
    const check = run.judge(read(), { toolCallId: 'late', alreadyRan: true });
    expect(check.blocked).toBe(true);
    expect(run.records().length).toBe(4);
    expect(run.records().at(-1)).toMatchObject({ toolName: 'read', toolCallId: 'late' });
  });

  it('judge(call, toolCallId) still takes the call id alone, and the outcome finds its record by it', () => {
    const run = new LoopRun({ config: W2C3 });
    expect(run.judge(read(), 'c1').blocked).toBe(false);
    run.complete(read(), 'c1', ok());
    expect(run.records()).toEqual([expect.objectContaining({ toolCallId: 'c1', resultHash: ok().resultHash })]);
  });

  it('records carry the run id bound at construction (trimmed), and a result-less outcome records nothing', () => {
    const run = new LoopRun({ config: W2C3, runId: '  job-1 ' });
    expect(run.runId).toBe('job-1');
    run.recordCall(read(), 'c1');
    expect(run.complete(read(), 'c1', {})).toBeUndefined();
    expect(run.records()).toEqual([expect.objectContaining({ runId: 'job-1', toolCallId: 'c1' })]);
    expect(run.records()[0].resultHash).toBeUndefined();
  });

  it('with enabled: false nothing is recorded and no detector runs', () => {
    const run = new LoopRun({ config: resolveLoopDetectionConfig({ enabled: false }) });
    for (let i = 0; i < 5; i += 1) expect(run.judge(read()).verdict).toBeUndefined();
    expect(run.records().length).toBe(0);
    expect(run.arm().enabled).toBe(false);
  });

  it('the guard uses the run’s own window size and aborts on the window of identical triples', () => {
    const run = new LoopRun({ config: resolveLoopDetectionConfig({ postCompactionGuard: { windowSize: 2 } }) });
    expect(run.complete(read(), undefined, ok())).toBeUndefined(); // not armed: nothing observed
    expect(run.arm().windowSize).toBe(2);
    expect(run.complete(read(), undefined, ok())).toBeUndefined();
    expect(run.complete(read(), undefined, ok())).toMatchObject({ shouldAbort: true, count: 2, toolName: 'read' });
  });

  it('runs sharing one history window see only their own records, while the window trims across runs', () => {
    const history = new ToolCallHistory();
    const config = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, historySize: 3 });
    const a = new LoopRun({ config, runId: 'a', history });
    const b = new LoopRun({ config, runId: 'b', history });
    a.recordCall(read());
    a.recordCall(read());
    expect(a.check(read()).verdict?.level).toBe('warning');
    expect(b.check(read()).verdict).toBeUndefined();
    b.recordCall(read());
    b.recordCall(read()); // the window holds 3: a's oldest record is evicted
    expect(history.size).toBe(3);
    expect(a.check(read()).verdict).toBeUndefined();
    expect(b.check(read()).verdict?.level).toBe('warning');
  });

  it('a warning is surfaced once per bucket of warningThreshold, criticals every time', () => {
    const run = new LoopRun({
      config: resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, criticalThreshold: 10 }),
    });
    const emitted: boolean[] = [];
    for (let i = 0; i < 6; i += 1) {
      const check = run.judge(read());
      if (check.verdict) emitted.push(check.emit);
      run.complete(read(), undefined, ok(i)); // results differ: no critical
    }
    // counts 2, 3, 4, 5 → buckets 1, 1, 2, 2
    expect(emitted).toEqual([true, false, true, false]);
  });
});
