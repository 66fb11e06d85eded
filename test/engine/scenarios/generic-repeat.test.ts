/** OpenClaw's loop-detection scenarios 5–14 (Generic repeat). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const SAME = { path: '/same.txt' };
const SAME_OUTPUT = R('same output', { ok: true });

const warningMessage = (tool: string, n: number) =>
  `WARNING: You have called ${tool} ${n} times with identical arguments. If this is not making progress, stop retrying and report the task as failed.`;
const criticalMessage = (tool: string, n: number) =>
  `CRITICAL: Called ${tool} with identical arguments and identical outcomes ${n} times. Session execution blocked to prevent runaway loops.`;

describe('generic repeat', () => {
  it('scenario 5: 10 identical read calls → warning generic_repeat, count 10', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(10, 'read', SAME);
    const checked = h.check('read', SAME);
    const argsHash = h.argsHash('read', SAME);
    expect(checked.blocked).toBe(false);
    expect(checked.emit).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'warning',
      detector: 'generic_repeat',
      count: 10,
      warningKey: `generic:read:${argsHash}`,
    });
    expect(checked.verdict!.message).toContain('WARNING');
    expect(checked.verdict!.message).toContain('10 times');
    expect(checked.verdict!.message).toBe(warningMessage('read', 10));
    expect(h.logger.at('warn')).toEqual([
      'Loop warning: read called 10 times with identical arguments',
      `Loop warning for read: ${warningMessage('read', 10)}`,
    ]);
  });

  it('scenario 6: 9 identical read calls → not stuck (boundary below W)', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(9, 'read', SAME);
    expect(h.check('read', SAME).verdict).toBeUndefined();
    h.calls(1, 'read', SAME);
    expect(h.check('read', SAME).verdict?.count).toBe(10);
  });

  it('scenario 7: 20 identical outcomes → critical generic_repeat, count 20', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'read', SAME, SAME_OUTPUT);
    const checked = h.check('read', SAME);
    const argsHash = h.argsHash('read', SAME);
    const resultHash = h.resultHash('read', SAME, SAME_OUTPUT);
    expect(resultHash).toBeDefined();
    expect(checked.blocked).toBe(true);
    expect(checked.emit).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'generic_repeat',
      count: 20,
      warningKey: `generic:read:${argsHash}:${resultHash}`,
    });
    expect(checked.verdict!.message).toContain('identical outcomes');
    expect(checked.verdict!.message).toBe(criticalMessage('read', 20));
    expect(h.logger.at('error')).toEqual([
      'Critical generic loop detected: read repeated 20 times',
      `Blocking read due to critical loop: ${criticalMessage('read', 20)}`,
    ]);
  });

  it('scenario 8: 19 identical outcomes → warning generic_repeat, count 19', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(19, 'read', SAME, SAME_OUTPUT);
    const verdict = h.detect('read', SAME);
    expect(verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 19 });
    expect(verdict!.message).toBe(warningMessage('read', 19));
  });

  it('scenario 9: 30 identical outcomes → critical global_circuit_breaker, count 30', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(30, 'read', SAME, SAME_OUTPUT);
    const checked = h.check('read', SAME);
    const argsHash = h.argsHash('read', SAME);
    const resultHash = h.resultHash('read', SAME, SAME_OUTPUT);
    const message =
      'CRITICAL: read has repeated identical no-progress outcomes 30 times. Session execution blocked by global circuit breaker to prevent runaway loops.';
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'global_circuit_breaker',
      count: 30,
      message,
      warningKey: `global:read:${argsHash}:${resultHash}`,
    });
    expect(checked.verdict!.message).toContain('global circuit breaker');
    expect(h.logger.at('error')).toEqual([
      'Global circuit breaker triggered: read repeated 30 times with no progress',
      `Blocking read due to critical loop: ${message}`,
    ]);
  });

  it('scenario 10: 29 identical outcomes → critical generic_repeat, count 29 (breaker not reached)', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(29, 'read', SAME, SAME_OUTPUT);
    const verdict = h.detect('read', SAME);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 29 });
    expect(verdict!.message).toBe(criticalMessage('read', 29));
  });

  it('scenario 11: 30 exec{date} with changing output → warning generic_repeat, never critical', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(30, 'exec', { command: 'date' }, (i) =>
      R(`tick ${i}`, { status: 'completed', exitCode: 0, durationMs: 100 + i, aggregated: `tick ${i}` }),
    );
    const checked = h.check('exec', { command: 'date' });
    expect(checked.blocked).toBe(false);
    expect(checked.verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 30 });
    expect(checked.verdict!.message).toBe(warningMessage('exec', 30));
  });

  it('scenario 12: 5×→R1 then 19×→R2 → warning count 24; one more →R2 → critical count 20', async () => {
    const h = await EngineHarness.create(C0);
    const A = { path: '/a' };
    const R1 = R('first', { ok: true });
    const R2 = R('second', { ok: true });
    h.completed(5, 'read', A, R1);
    h.completed(19, 'read', A, R2);
    // The no-progress streak stops at R1 (19 < C); recentCount is 24 ≥ W.
    expect(h.history.view().noProgressStreak(h.argsHash('read', A), 'read').count).toBe(19);
    expect(h.detect('read', A)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 24 });
    h.completed(1, 'read', A, R2);
    const verdict = h.detect('read', A);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
    expect(verdict!.warningKey).toBe(`generic:read:${h.argsHash('read', A)}:${h.resultHash('read', A, R2)}`);
  });

  it('scenario 13: historySize 50, 20 reads interleaved with distinct writes → critical generic_repeat, count 20', async () => {
    const h = await EngineHarness.create({ enabled: true, historySize: 50 });
    const A = { path: '/a' };
    for (let i = 0; i < 20; i += 1) {
      h.completed(1, 'read', A, R('same', { ok: true }));
      h.completed(1, 'write', { path: `/x_${i}` }, R(`wrote ${i}`, { ok: true, i }));
    }
    expect(h.records()).toHaveLength(40);
    // Interleaving does not break the (non-consecutive) streak; the alternation tail is
    // write_19, read → ping-pong count 3, far below W.
    expect(h.history.view().pingPong(h.argsHash('read', A)).count).toBe(3);
    const verdict = h.detect('read', A);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
  });

  it('scenario 14: 25 pending read calls → warning count 25, never critical (no outcome evidence)', async () => {
    const h = await EngineHarness.create(C0);
    const A = { path: '/a' };
    h.calls(25, 'read', A);
    expect(h.detect('read', A)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 25 });
    // Even a full window of pending calls stays a warning (no breaker, no critical).
    h.calls(10, 'read', A);
    expect(h.records()).toHaveLength(30);
    expect(h.detect('read', A)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 30 });
  });
});
