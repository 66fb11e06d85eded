/**
 * OpenClaw #127701 ("Critical-tier tool-loop block prevents its own escalation"): a blocked call
 * is recorded as a loop veto, which counts once an older concrete outcome anchors it.
 */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const A = { path: '/a' };
const SAME = R('same', { ok: true });

describe('vetoes extend the streak', () => {
  it('a loop that goes on is blocked at 20, 21, … and stopped by the circuit breaker at 30', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'read', A, SAME);
    const counts: Array<[string, number]> = [];
    for (let i = 0; i < 11; i += 1) {
      const check = h.run('read', A, { result: SAME });
      expect(check.blocked).toBe(true);
      counts.push([check.verdict!.detector, check.verdict!.count]);
    }
    expect(counts.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => ['generic_repeat', 20 + i]));
    expect(counts[10]).toEqual(['global_circuit_breaker', 30]);
    expect(h.records().filter((record) => record.outcomeKind === 'tool-loop-veto')).toHaveLength(11);
  });

  it('vetoes count only once an older concrete outcome anchors them; none at all → the number of vetoes', async () => {
    const h = await EngineHarness.create({ enabled: true, warningThreshold: 2, criticalThreshold: 3 });
    const run = h.runOf();
    for (let i = 0; i < 3; i += 1) run.recordVeto(h.sig('read', A));
    expect(h.detect('read', A)).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 3 });
  });

  it('a newer changed outcome drops the older vetoes', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'read', A, SAME);
    h.run('read', A, { result: SAME });
    h.run('read', A, { result: SAME });
    expect(h.check('read', A).verdict).toMatchObject({ count: 22 });
    // The file changed: an outcome that differs ends the streak before the vetoes behind it.
    h.complete('read', A, { result: R('changed', { ok: true }) });
    expect(h.detect('read', A)).toMatchObject({ level: 'warning', detector: 'generic_repeat' });
    h.run('read', A, { result: R('changed', { ok: true }) });
    expect(h.records().at(-1)!.outcomeKind).toBeUndefined();
  });

  it('vetoes between identical outcomes are added to the streak', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'read', A, SAME);
    h.runOf().recordVeto(h.sig('read', A));
    h.runOf().recordVeto(h.sig('read', A));
    h.completed(8, 'read', A, SAME);
    expect(h.detect('read', A)).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
  });

  it('detectors.vetoesExtendStreak off: blocked calls are not recorded and the count stays at 20', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { vetoesExtendStreak: false } });
    h.completed(20, 'read', A, SAME);
    const counts = [1, 2, 3].map(() => h.run('read', A, { result: SAME }).verdict!.count);
    expect(counts).toEqual([20, 20, 20]);
    expect(h.records()).toHaveLength(20);
  });

  it('the post-compaction guard does not observe vetoes', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'read', A, SAME);
    const guard = h.runOf().arm();
    h.run('read', A, { result: SAME });
    expect(guard.remainingAttempts).toBe(3);
  });
});

describe('batch admission: calls in flight count as no-progress vetoes for later siblings', () => {
  const POLL = { action: 'poll', sessionId: 's1' };
  const RUNNING = R('still running', { status: 'running' });

  it('19 identical polls, then a batch [poll, poll] → the second is critical, count 20', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(19, 'process', POLL, RUNNING);
    const run = h.runOf();
    const first = run.judge(h.sig('process', POLL), { toolCallId: 'batch-1' });
    const second = run.judge(h.sig('process', POLL), { toolCallId: 'batch-2' });
    expect(first.verdict).toMatchObject({ level: 'warning', detector: 'known_poll_no_progress', count: 19 });
    expect(second).toMatchObject({
      blocked: true,
      verdict: { level: 'critical', detector: 'known_poll_no_progress', count: 20 },
    });
  });

  it('20 prior polls, 20 unrelated in-flight writes, then the poll → critical at 20', async () => {
    const h = await EngineHarness.create({ enabled: true, historySize: 50 });
    h.completed(20, 'process', POLL, RUNNING);
    const run = h.runOf();
    for (let i = 0; i < 20; i += 1)
      run.judge(h.sig('write', { path: `/w${i}`, content: 'x' }), { toolCallId: `w${i}` });
    expect(run.judge(h.sig('process', POLL), { toolCallId: 'poll' })).toMatchObject({
      blocked: true,
      verdict: { detector: 'known_poll_no_progress', count: 20 },
    });
  });

  it('a sibling that finished is no veto any more', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(19, 'process', POLL, RUNNING);
    const run = h.runOf();
    const sig = h.sig('process', POLL);
    run.judge(sig, { toolCallId: 'batch-1' });
    run.complete(sig, 'batch-1', h.outcomeHash('process', POLL, { result: R('done', { status: 'completed' }) }));
    expect(run.judge(sig, { toolCallId: 'batch-2' }).blocked).toBe(false);
  });

  it('detectors.batchAdmission off: siblings in flight do not count', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { batchAdmission: false } });
    h.completed(19, 'process', POLL, RUNNING);
    const run = h.runOf();
    run.judge(h.sig('process', POLL), { toolCallId: 'batch-1' });
    expect(run.judge(h.sig('process', POLL), { toolCallId: 'batch-2' }).blocked).toBe(false);
  });
});
