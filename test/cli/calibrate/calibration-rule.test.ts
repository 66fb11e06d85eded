/** The calibration rule: thresholds a margin above what healthy runs did, never below OpenClaw's counts. */
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../../src/cli/calibrate/calibration-rule.js';
import type { Peak, PeakKind, RunPeaks } from '../../../src/cli/calibrate/peaks.js';

/** A run's peaks from `{kind: {tool: count}}`. */
function run(id: string, peaks: Partial<Record<PeakKind, Record<string, number>>>): RunPeaks {
  const map = new Map<PeakKind, Map<string, Peak>>();
  for (const [kind, tools] of Object.entries(peaks) as Array<[PeakKind, Record<string, number>]>)
    map.set(kind, new Map(Object.entries(tools).map(([tool, count]) => [tool, { count, call: count + 1 }])));
  return { id, calls: 20, peaks: map };
}

describe('calibrate', () => {
  it('runs that repeat little get OpenClaw floors, each warning the margin below its critical', () => {
    const { block, choices } = calibrate([run('a', { repeat: { read: 2 } }), run('b', {})]);
    expect(block).toMatchObject({
      enabled: true,
      genericRepeatInARow: true,
      pingPongRequiresNoProgress: true,
      criticalThreshold: 10,
      warningThreshold: 8,
      similarOutcomeThreshold: 10,
      similarOutcomeWarningThreshold: 8,
      unknownToolThreshold: 10,
      unknownToolWarningThreshold: 8,
      typedErrorCriticalThreshold: 5,
      typedErrorWarningThreshold: 3,
      detectors: { similarOutcome: true },
    });
    expect(block.byTool).toBeUndefined();
    expect(choices.find((c) => c.key === 'criticalThreshold')).toMatchObject({
      value: 10,
      floor: 10,
      peak: { count: 2, run: 'a', tool: 'read', kind: 'repeat' },
    });
  });

  it('a critical sits margin + 1 above the highest count, so a run needs `margin` more repeats to be blocked', () => {
    const runs = [run('a', { repeat: { poll: 11 }, failure: { search: 9 } }), run('b', { alternation: { read: 6 } })];
    for (const margin of [1, 2, 5]) {
      const { block } = calibrate(runs, { margin, perTool: false });
      expect(block.criticalThreshold).toBe(Math.max(10, 11 + 1 + margin));
      expect(block.similarOutcomeThreshold).toBe(Math.max(10, 9 + 1 + margin));
    }
  });

  it('a warning comes the margin below its critical, or just above a run that came closer', () => {
    const close = calibrate([run('a', { failure: { search: 7 } })], { perTool: false });
    expect(close.block).toMatchObject({ similarOutcomeThreshold: 10, similarOutcomeWarningThreshold: 8 });
    const closer = calibrate([run('a', { failure: { search: 8 } })], { perTool: false });
    expect(closer.block).toMatchObject({ similarOutcomeThreshold: 11, similarOutcomeWarningThreshold: 9 });
    const far = calibrate([run('a', { repeat: { read: 2 } })], { perTool: false, margin: 1 });
    expect(far.block).toMatchObject({ criticalThreshold: 10, warningThreshold: 9 });
  });

  it('without floors the thresholds follow the runs alone, and still leave a warning step', () => {
    const { block } = calibrate([run('a', { repeat: { read: 1 } })], { floors: false, perTool: false });
    expect(block).toMatchObject({
      criticalThreshold: 4,
      warningThreshold: 2,
      similarOutcomeThreshold: 3,
      similarOutcomeWarningThreshold: 1,
    });
  });

  it('a tool whose repeats stand out above the others by more than the margin gets thresholds of its own', () => {
    const runs = [run('a', { repeat: { poll_status: 15, read: 3 } }), run('b', { repeat: { write: 2 } })];
    const { block, choices } = calibrate(runs);
    expect(block.criticalThreshold).toBe(10);
    expect({ ...block.byTool }).toEqual({ poll_status: { criticalThreshold: 18, warningThreshold: 16 } });
    expect(choices.find((c) => c.tool === 'poll_status' && c.key === 'criticalThreshold')?.peak).toMatchObject({
      count: 15,
      run: 'a',
    });
    expect(calibrate(runs, { perTool: false }).block).toMatchObject({ criticalThreshold: 18 });
    expect(calibrate(runs, { perTool: false }).block.byTool).toBeUndefined();
  });

  it('tools within the margin of each other share one threshold', () => {
    const { block } = calibrate([run('a', { repeat: { a: 12, b: 11, c: 10 } })]);
    expect(block.byTool).toBeUndefined();
    expect(block.criticalThreshold).toBe(15);
  });
});
