/**
 * OpenClaw's newer ladder entries: `wait` polls (critical at 10), argument-validation failures
 * (counted toward `generic_repeat`), stable argument churn (PR #112620) and same-target write
 * churn (PR #122631).
 */
import { describe, expect, it } from 'vitest';
import { LoopRun } from '../../../src/engine-entry.js';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

describe('wait polls', () => {
  it('ten unchanged wait outcomes are critical known_poll_no_progress at 10', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(9, 'wait', { jobId: 'j1' }, R('still waiting', { status: 'running' }));
    expect(h.detect('wait', { jobId: 'j1' })).toBeUndefined();
    h.completed(1, 'wait', { jobId: 'j1' }, R('still waiting', { status: 'running' }));
    expect(h.detect('wait', { jobId: 'j1' })).toMatchObject({
      level: 'critical',
      detector: 'known_poll_no_progress',
      count: 10,
    });
  });

  it('detectors.waitPoll off: wait is an ordinary tool again (warning at 10, critical at 20)', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { waitPoll: false } });
    h.completed(10, 'wait', { jobId: 'j1' }, R('still waiting', { status: 'running' }));
    expect(h.detect('wait', { jobId: 'j1' })).toMatchObject({ level: 'warning', detector: 'generic_repeat' });
  });

  it('waitCriticalThreshold is a knob', async () => {
    const h = await EngineHarness.create({ enabled: true, waitCriticalThreshold: 4, warningThreshold: 3 });
    h.completed(4, 'wait', {}, R('same'));
    expect(h.detect('wait', {})).toMatchObject({ level: 'critical', count: 4 });
  });
});

describe('argument-validation failures', () => {
  const invalid = { error: new Error('Validation failed for tool "exec": command: Required') };

  it('are recorded as argument-validation with a hash: 10 → warning, 20 → critical generic_repeat', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'exec', {}, undefined);
    expect(h.records().every((r) => r.resultHash === undefined)).toBe(true);
    const v = await EngineHarness.create(C0);
    for (let i = 0; i < 10; i += 1) v.complete('exec', { cmd: 'ls' }, invalid);
    expect(v.records().every((r) => r.outcomeKind === 'argument-validation' && r.resultHash !== undefined)).toBe(true);
    expect(v.detect('exec', { cmd: 'ls' })).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 10 });
    for (let i = 0; i < 10; i += 1) v.complete('exec', { cmd: 'ls' }, invalid);
    expect(v.detect('exec', { cmd: 'ls' })).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
    // The corrected call runs normally.
    expect(v.detect('exec', { command: 'ls' })).toBeUndefined();
  });
});

describe('stable argument churn', () => {
  const unchanged = R('unchanged', { changed: false });
  const cycle = ['/tmp/a.md', '/tmp/b.md', '/tmp/a.md', '/tmp/a.md', '/tmp/b.md'];
  const write = (i: number) => ({ path: cycle[i % cycle.length], content: 'same' });

  it('identical content written to alternating paths, unchanged each time → argument_churn warning at 10', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'write', write, unchanged);
    expect(h.detect('write', { path: '/tmp/a.md', content: 'same' })).toMatchObject({
      level: 'warning',
      detector: 'argument_churn',
      count: 10,
      warningKey: 'argument-churn:write',
      livenessSignal: 'argument_churn',
      message:
        'WARNING: write has cycled through 2 repeated argument patterns with the same stable outcome 10 times. Continued churn is treated as stalled run activity, but this tool call remains allowed.',
    });
  });

  it('novel arguments reset it; a variant with fewer than 3 calls breaks it', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'write', write, unchanged);
    expect(h.detect('write', { path: '/tmp/new.md', content: 'same' })).toBeUndefined();
    h.complete('write', { path: '/tmp/probe.md', content: 'same' }, { result: unchanged });
    expect(h.detect('write', { path: '/tmp/a.md', content: 'same' })).toBeUndefined();
  });

  it('generic stable successes such as {ok:true} are no churn: only the ordinary generic warning', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'read', (i: number) => ({ path: i % 2 ? '/a' : '/b' }), R('ok', { ok: true }));
    expect(h.detect('read', { path: '/a' })).toMatchObject({ detector: 'generic_repeat', level: 'warning' });
  });

  it('the run reports when churn became active, and forgets it when churn stops', async () => {
    let now = 1_000;
    const h = await EngineHarness.create(C0);
    const run = new LoopRun({ config: h.config, now: () => now });
    for (let i = 0; i < 10; i += 1) {
      run.judge(h.sig('write', write(i)), { toolCallId: `w${i}` });
      run.complete(h.sig('write', write(i)), `w${i}`, h.outcomeHash('write', write(i), { result: unchanged }));
    }
    expect(run.check(h.sig('write', write(10))).churnActiveSince).toBe(1_000);
    now = 5_000;
    expect(run.check(h.sig('write', write(10))).churnActiveSince).toBe(1_000);
    expect(run.check(h.sig('write', { path: '/tmp/novel.md', content: 'same' })).churnActiveSince).toBeUndefined();
    expect(run.check(h.sig('write', write(10))).churnActiveSince).toBe(5_000);
  });

  it('detectors.argumentChurn off: no argument_churn verdict', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { argumentChurn: false } });
    h.completed(10, 'write', write, unchanged);
    expect(h.detect('write', { path: '/tmp/a.md', content: 'same' })?.detector).not.toBe('argument_churn');
  });
});

describe('same-target write churn', () => {
  const wrote = R('wrote /tmp/report.md', { ok: true });
  const variant = (i: number) => ({ path: '/tmp/report.md', content: `draft ${i}` });

  it('10 distinct variants written to one target without verification → argument_churn warning', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(9, 'write', variant, wrote);
    expect(h.detect('write', variant(9))).toBeUndefined();
    h.completed(1, 'write', (i: number) => variant(9 + i), wrote);
    expect(h.records().every((r) => r.outcomeKind === 'write-mutation')).toBe(true);
    const verdict = h.detect('write', variant(10));
    expect(verdict).toMatchObject({
      level: 'warning',
      detector: 'argument_churn',
      count: 10,
      message:
        'WARNING: write has changed the same target with 10 distinct argument variants and no intervening verification. Continued rewriting is treated as stalled run activity, but this tool call remains allowed. Read or verify the current result before rewriting it again.',
    });
    expect(verdict!.warningKey).toMatch(/^argument-churn:write:write-mutation:[0-9a-f]{16}$/);
  });

  it('a read that verifies the file breaks the tail; a variant already written counts 0', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'write', variant, wrote);
    expect(h.detect('write', variant(3))).toBeUndefined();
    h.complete('read', { path: '/tmp/report.md' }, { result: R('draft 9') });
    expect(h.detect('write', variant(10))).toBeUndefined();
  });

  it('relative and normalised paths name one target; another target is another tail', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(
      10,
      'write',
      (i: number) => ({ path: i % 2 ? '/tmp/./report.md' : '/tmp/x/../report.md', content: `d${i}` }),
      wrote,
    );
    expect(h.detect('write', { path: '/tmp/report.md', content: 'new' })).toMatchObject({ count: 10 });
    expect(h.detect('write', { path: '/tmp/other.md', content: 'new' })).toBeUndefined();
  });
});
