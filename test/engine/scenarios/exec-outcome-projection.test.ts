/** OpenClaw's loop-detection scenarios 35–40 (Exec outcome projection). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

describe('exec outcome projection', () => {
  it('scenario 35: 20 completed execs differing only in durationMs/cwd → critical generic_repeat', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'grafana-api.sh datasources' };
    h.completed(20, 'exec', params, (i) =>
      R('Loki\nPrometheus', {
        status: 'completed',
        exitCode: 0,
        durationMs: 100 + i,
        cwd: `/tmp/run-${i}`,
        aggregated: 'Loki\nPrometheus',
      }),
    );
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(1);
    expect(h.check('exec', params).verdict).toMatchObject({
      level: 'critical',
      detector: 'generic_repeat',
      count: 20,
      message:
        'CRITICAL: Called exec with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
    });
  });

  it('scenario 36: 20 running execs with varying session/pid/startedAt/cwd and the same tail → critical generic_repeat', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'tail -f /var/log/app.log', yieldMs: 1000 };
    h.completed(20, 'exec', params, (i) =>
      R(`Command still running (session sess-${i}, pid ${1000 + i})`, {
        status: 'running',
        sessionId: `sess-${i}`,
        pid: 1000 + i,
        startedAt: 1_700_000_000_000 + i,
        cwd: `/tmp/run-${i}`,
        tail: '(no new output)',
      }),
    );
    expect(h.detect('exec', params)).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
    // The tail is what identifies a running exec.
    const running = (tail: string) => R('x', { status: 'running', tail });
    expect(h.resultHash('exec', params, running('a'))).not.toBe(h.resultHash('exec', params, running('b')));
  });

  it('scenario 37: 30 failed execs with empty aggregated and changing text → warning only', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'openclaw flaky-helper' };
    h.completed(30, 'exec', params, (i) =>
      R(`Runtime failed before spawn: attempt ${i}`, {
        status: 'failed',
        exitCode: null,
        durationMs: 10 + i,
        aggregated: '',
      }),
    );
    // The empty `aggregated` falls back to the changing text, so every outcome differs.
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(30);
    expect(h.check('exec', params).verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 30 });
  });

  it('scenario 38: timedOut true vs absent → different resultHash', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'sleep 100' };
    const timedOut = h.resultHash(
      'exec',
      params,
      R('x', { status: 'failed', exitCode: 1, timedOut: true, aggregated: 'x' }),
    );
    const notTimedOut = h.resultHash('exec', params, R('x', { status: 'failed', exitCode: 1, aggregated: 'x' }));
    expect(timedOut).toBeDefined();
    expect(notTimedOut).toBeDefined();
    expect(timedOut).not.toBe(notTimedOut);
    // `timedOut` other than `true` counts as false.
    expect(
      h.resultHash('exec', params, R('x', { status: 'failed', exitCode: 1, timedOut: 'yes', aggregated: 'x' })),
    ).toBe(notTimedOut);
  });

  it('scenario 39: approval-pending results differing only in requestId → equal resultHash', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'rm -rf /tmp/x' };
    const pending = (requestId: string, command = 'c') =>
      R(`approval ${requestId}`, {
        status: 'approval-pending',
        reason: 'r',
        host: 'h',
        command,
        warningText: 'w',
        requestId,
      });
    const first = h.resultHash('exec', params, pending('req-1'));
    expect(first).toBeDefined();
    expect(h.resultHash('exec', params, pending('req-2'))).toBe(first);
    expect(h.resultHash('exec', params, pending('req-3', 'other'))).not.toBe(first);
  });

  it('scenario 40: exec details without status → every hash differs, only warnings', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'date' };
    h.completed(20, 'exec', params, (i) => R('same text', { durationMs: i }));
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(20);
    expect(h.detect('exec', params)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 20 });
  });
});
