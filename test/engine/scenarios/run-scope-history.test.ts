/** OpenClaw's loop-detection scenarios 50–58 (Run scope and history window). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R, RUN } from '../../helpers/engine-harness.js';

const SAME = { path: '/same' };

describe('run scope and history window', () => {
  it('scenario 50: 10 reads in run heartbeat-1; check in heartbeat-2 → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(10, 'read', SAME, { runId: RUN.heartbeat1 });
    expect(h.check('read', SAME, { runId: RUN.heartbeat2 }).verdict).toBeUndefined();
  });

  it('scenario 51: 10 reads in run heartbeat-1; check in the same run → warning generic_repeat, count 10', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(10, 'read', SAME, { runId: RUN.heartbeat1 });
    expect(h.check('read', SAME, { runId: RUN.heartbeat1 }).verdict).toMatchObject({
      level: 'warning',
      detector: 'generic_repeat',
      count: 10,
    });
    // Run ids are trimmed.
    expect(h.detect('read', SAME, { runId: `  ${RUN.heartbeat1} ` })?.count).toBe(10);
  });

  it('scenario 52: 10 scoped calls in run-1; an unscoped check → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(10, 'read', SAME, { runId: RUN.run1 });
    expect(h.check('read', SAME).verdict).toBeUndefined();
    // A blank run id is "no run id" too.
    expect(h.detect('read', SAME, { runId: '   ' })).toBeUndefined();
    // And unscoped history is invisible to scoped checks.
    const u = await EngineHarness.create(C0);
    u.calls(10, 'read', SAME);
    expect(u.detect('read', SAME, { runId: RUN.run1 })).toBeUndefined();
    expect(u.detect('read', SAME, { runId: '' })?.count).toBe(10);
  });

  it('scenario 53: call in run-1, outcome for run-2 with the same toolCallId → 2 records', async () => {
    const h = await EngineHarness.create(C0);
    h.call('read', SAME, { runId: RUN.run1, toolCallId: 'call-1' });
    h.outcome('read', SAME, { result: R('ok', { ok: true }) }, { runId: RUN.run2, toolCallId: 'call-1' });
    const records = h.records();
    expect(records).toHaveLength(2);
    expect(records[0].resultHash).toBeUndefined();
    expect(records[0].runId).toBe(RUN.run1);
    expect(records[1].runId).toBe(RUN.run2);
    expect(records[1].resultHash).toBe(h.resultHash('read', SAME, R('ok', { ok: true })));
    expect(records[1].toolCallId).toBe('call-1');
  });

  it('scenario 54: 40 distinct calls → 30 records, the oldest is iteration 10', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(40, 'read', (i) => ({ path: `/file${i}` }));
    const records = h.records();
    expect(records).toHaveLength(30);
    expect(h.history.size).toBe(30);
    expect(records[0].argsHash).toBe(h.argsHash('read', { path: '/file10' }));
    expect(records[29].argsHash).toBe(h.argsHash('read', { path: '/file39' }));
  });

  it('scenario 55: historySize 4, 10 calls → 4 records, the oldest is iteration 6', async () => {
    const h = await EngineHarness.create({ enabled: true, historySize: 4 });
    h.calls(10, 'read', (i) => ({ path: `/file${i}` }));
    const records = h.records();
    expect(records).toHaveLength(4);
    expect(records.map((r) => r.argsHash)).toEqual([6, 7, 8, 9].map((i) => h.argsHash('read', { path: `/file${i}` })));
  });

  it('scenario 56: call-1 then its outcome → 1 record with a hash; the recorder returns it', async () => {
    const h = await EngineHarness.create(C0);
    h.call('read', SAME, { toolCallId: 'call-1' });
    const returned = h.outcome('read', SAME, { result: R('ok', { ok: true }) }, { toolCallId: 'call-1' });
    const records = h.records();
    expect(records).toHaveLength(1);
    expect(records[0].resultHash).toBe(h.resultHash('read', SAME, R('ok', { ok: true })));
    expect(returned).toMatchObject({ toolCallId: 'call-1', toolName: 'read', resultHash: records[0].resultHash });
  });

  it('scenario 57: 33 call/outcome pairs → 30 records, oldest call-3, last returned id call-32', async () => {
    const h = await EngineHarness.create(C0);
    let last: string | undefined;
    for (let i = 0; i < 33; i += 1) {
      const params = { path: `/file${i}` };
      h.call('read', params, { toolCallId: `call-${i}` });
      last = h.outcome(
        'read',
        params,
        { result: R(`content ${i}`, { ok: true }) },
        { toolCallId: `call-${i}` },
      )?.toolCallId;
    }
    const records = h.records();
    expect(records).toHaveLength(30);
    expect(records[0].toolCallId).toBe('call-3');
    expect(records.every((r) => r.resultHash !== undefined)).toBe(true);
    expect(last).toBe('call-32');
  });

  it('scenario 58: breaker threshold 40 with history 30 → critical generic_repeat, count 30 (breaker unreachable)', async () => {
    const h = await EngineHarness.create({ enabled: true, globalCircuitBreakerThreshold: 40 });
    h.completed(40, 'read', SAME, R('same', { ok: true }));
    expect(h.records()).toHaveLength(30);
    const verdict = h.detect('read', SAME);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 30 });
  });
});
