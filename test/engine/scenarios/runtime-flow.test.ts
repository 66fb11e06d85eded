/** OpenClaw's loop-detection scenarios 66–69 (Runtime warn/block flow) (engine level). */
import { describe, expect, it } from 'vitest';
import { blockedToolResult } from '../../../src/engine-entry.js';
import { C0, EngineHarness, R, RUN } from '../../helpers/engine-harness.js';

const DATE = { command: 'date' };
const tick = (i: number) => ({ result: R(`tick ${i}`, { status: 'completed', exitCode: 0, aggregated: `tick ${i}` }) });

/** Runs `n` progressing exec calls through the check → record → outcome flow; returns each check by count. */
function runProgressingExec(h: EngineHarness, n: number) {
  const byCount = new Map<number, { emit: boolean; level?: string; detector?: string }>();
  for (let i = 0; i < n; i += 1) {
    const checked = h.run('exec', DATE, tick(i));
    expect(checked.blocked).toBe(false);
    if (checked.verdict)
      byCount.set(checked.verdict.count, {
        emit: checked.emit,
        level: checked.verdict.level,
        detector: checked.verdict.detector,
      });
  }
  return byCount;
}

describe('runtime warn/block flow', () => {
  it('scenario 66: a progressing exec warns at counts 10…20; emitted at 10 and 20 only; the detector logs every count', async () => {
    const h = await EngineHarness.create(C0);
    const byCount = runProgressingExec(h, 21);
    expect([...byCount.keys()]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    for (const [count, check] of byCount) {
      expect(check.level).toBe('warning');
      expect(check.detector).toBe('generic_repeat');
      expect(check.emit).toBe(count === 10 || count === 20);
    }
    const warns = h.logger.at('warn');
    const detectorLines = warns.filter((line) => line.startsWith('Loop warning: '));
    expect(detectorLines).toEqual(
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map(
        (n) => `Loop warning: exec called ${n} times with identical arguments`,
      ),
    );
    const hookLines = warns.filter((line) => line.startsWith('Loop warning for '));
    expect(hookLines).toEqual(
      [10, 20].map(
        (n) =>
          `Loop warning for exec: WARNING: You have called exec ${n} times with identical arguments. If this is not making progress, stop retrying and report the task as failed.`,
      ),
    );
  });

  it('scenario 67: warningThreshold 3 → warnings at 3–9; emitted at 3, 6, 9', async () => {
    // Deliberate difference from OpenClaw: warnings are bucketed by
    // floor(count / warningThreshold) rather than OpenClaw's fixed floor(count / 10), which
    // would silence every warning below 10. With W = 3 a steady loop warns at 3, 6 and 9.
    const h = await EngineHarness.create({ enabled: true, warningThreshold: 3 });
    const byCount = runProgressingExec(h, 10);
    expect([...byCount.keys()]).toEqual([3, 4, 5, 6, 7, 8, 9]);
    for (const [count, check] of byCount) {
      expect(check.level).toBe('warning');
      expect(check.emit).toBe(count === 3 || count === 6 || count === 9);
    }
    expect(byCount.get(4)!.emit).toBe(false);
    expect(byCount.get(5)!.emit).toBe(false);
    expect(byCount.get(7)!.emit).toBe(false);
    expect(byCount.get(8)!.emit).toBe(false);
    // The detector's own line is written at every count; the hook's only when emitted.
    expect(h.logger.at('warn').filter((l) => l.startsWith('Loop warning: '))).toHaveLength(7);
    expect(h.logger.at('warn').filter((l) => l.startsWith('Loop warning for exec: '))).toHaveLength(3);
  });

  it('scenario 68: a critical blocks — hook log, the call is recorded as a loop veto, and the blocked result has the OpenClaw shape', async () => {
    const h = await EngineHarness.create(C0);
    const A = { path: '/a' };
    h.completed(20, 'read', A, R('same', { ok: true }));
    const before = h.records();
    h.logger.clear();
    const checked = h.run('read', A, { result: R('never executed', {}) });
    expect(checked.blocked).toBe(true);
    expect(checked.emit).toBe(true);
    expect(checked.verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
    const message = checked.verdict!.message;
    expect(h.logger.at('error')).toContain(`Blocking read due to critical loop: ${message}`);
    // The call did not run: one record with the veto outcome and no hash (OpenClaw #127701).
    const records = h.records();
    expect(records.slice(0, -1)).toEqual(before);
    expect(records.at(-1)).toMatchObject({ toolName: 'read', outcomeKind: 'tool-loop-veto' });
    expect(records.at(-1)!.resultHash).toBeUndefined();
    expect(blockedToolResult(message)).toEqual({
      content: [{ type: 'text', text: message }],
      details: { status: 'blocked', deniedReason: 'tool-loop', reason: message },
    });
    // The next identical call is blocked again, one count higher.
    expect(h.check('read', A)).toMatchObject({ blocked: true, verdict: { count: 21 } });
  });

  it('scenario 69: the same loop in two runs → a warning is emitted once per run', async () => {
    const h = await EngineHarness.create(C0);
    const A = { path: '/a' };
    h.calls(10, 'read', A, { runId: RUN.run1 });
    const first = h.check('read', A, { runId: RUN.run1 });
    expect(first).toMatchObject({ emit: true, verdict: { level: 'warning', count: 10 } });
    // Same run, same bucket → suppressed.
    expect(h.check('read', A, { runId: RUN.run1 }).emit).toBe(false);
    h.calls(10, 'read', A, { runId: RUN.run2 });
    const second = h.check('read', A, { runId: RUN.run2 });
    expect(second.verdict!.warningKey).toBe(first.verdict!.warningKey);
    expect(second.emit).toBe(true);
    expect(h.check('read', A, { runId: RUN.run2 }).emit).toBe(false);
    expect(h.logger.at('warn').filter((l) => l.startsWith('Loop warning for read: '))).toHaveLength(2);
  });
});
