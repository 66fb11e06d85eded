/** `LoopRun` budgets and waste: tokens and time burned inside a detected loop, escalation, shadow mode. */
import { describe, expect, it } from 'vitest';
import { LoopRun, resolveLoopDetectionConfig } from '../../src/engine-entry.js';
import { engineCalls } from '../helpers/engine-calls.js';

const { read, grep: other, readResult: same } = engineCalls();
const W3C6 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 3, criticalThreshold: 6 });

/** A run on a manual clock: each call advances it by `stepMs` and its model call reports `tokens`. */
function clockedRun(options: { budget?: { tokens?: number; ms?: number }; shadow?: boolean } = {}) {
  let now = 1_000;
  const run = new LoopRun({ config: W3C6, now: () => now, policy: options });
  const call = (tokens: number, stepMs = 100, signature = read()) => {
    now += stepMs;
    run.spend(tokens);
    const check = run.judge(signature, { toolCallId: `call-${now}` });
    if (!check.blocked) run.complete(signature, `call-${now}`, same());
    return check;
  };
  return { run, call, advance: (ms: number) => (now += ms) };
}

describe('LoopRun waste', () => {
  it('reports the time and tokens since the loop first member, not before it', () => {
    const { call } = clockedRun();
    call(500, 100, other(1)); // before the loop: its tokens are not the loop's
    call(40); // first member (its model call reported 40 before it ran)
    call(60);
    call(70);
    const warning = call(80);
    expect(warning.verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat' });
    expect(warning.wastedMs).toBe(300);
    expect(warning.wastedTokens).toBe(210);
    expect(warning.window).toMatchObject({
      callIds: ['call-1200', 'call-1300', 'call-1400'],
      firstCallId: 'call-1200',
      firstTimestamp: 1200,
    });
  });

  it('reports no tokens for a run whose model calls reported none', () => {
    const { call } = clockedRun();
    [1, 2, 3].forEach(() => call(0));
    const warning = call(0);
    expect(warning.verdict?.level).toBe('warning');
    expect(warning.wastedTokens).toBeUndefined();
    expect(warning.wastedMs).toBe(300);
  });
});

describe('LoopRun budgets', () => {
  it('without a budget, a warning stays a warning however much the loop burned', () => {
    const { call } = clockedRun();
    const checks = [1, 2, 3, 4, 5].map(() => call(1_000_000, 60_000));
    expect(checks.map((c) => c.verdict?.level ?? 'none')).toEqual(['none', 'none', 'none', 'warning', 'warning']);
  });

  it('a token budget escalates the loop warning to a critical that blocks, before the count threshold', () => {
    const { call } = clockedRun({ budget: { tokens: 350 } });
    const checks = [1, 2, 3, 4, 5].map(() => call(100));
    expect(checks.map((c) => c.verdict?.level ?? 'none')).toEqual(['none', 'none', 'none', 'warning', 'critical']);
    expect(checks[3]).toMatchObject({ blocked: false, wastedTokens: 300 });
    const escalated = checks[4];
    expect(escalated).toMatchObject({ blocked: true, emit: true, budgetExceeded: 'tokens', wastedTokens: 400 });
    expect(escalated.verdict).toMatchObject({ detector: 'generic_repeat', count: 4 });
    expect(escalated.verdict?.message).toMatch(
      /^CRITICAL: read is in a loop .* burned 400 tokens, past the budget of 350/,
    );
  });

  it('a time budget escalates once the loop has lasted that long', () => {
    const { call } = clockedRun({ budget: { ms: 2_500 } });
    const checks = [1, 2, 3, 4].map(() => call(0, 1_000));
    expect(checks.map((c) => c.budgetExceeded ?? c.verdict?.level ?? 'none')).toEqual(['none', 'none', 'none', 'time']);
    expect(checks[3].wastedMs).toBe(3_000);
  });

  it('calls that are no loop are never blocked by a budget', () => {
    const { call } = clockedRun({ budget: { tokens: 1, ms: 1 } });
    const checks = Array.from({ length: 12 }, (_, i) => call(10_000, 10_000, other(i)));
    expect(checks.every((c) => c.verdict === undefined && !c.blocked)).toBe(true);
  });

  it('shadow mode: the critical is reached but nothing is blocked, and the call is recorded as a call', () => {
    const { run, call } = clockedRun({ budget: { tokens: 250 }, shadow: true });
    const checks = [1, 2, 3, 4].map(() => call(100));
    expect(checks[3]).toMatchObject({ blocked: false, emit: true, budgetExceeded: 'tokens' });
    expect(checks[3].verdict?.level).toBe('critical');
    expect(run.records().every((r) => r.outcomeKind !== 'tool-loop-veto')).toBe(true);
  });
});

describe('LoopRun span references', () => {
  it('keeps the span of each judged call while detection runs, for the members of a loop', () => {
    const run = new LoopRun({ config: W3C6 });
    const traceId = 'a'.repeat(32);
    const spans = ['00000000000000a1', 'ffffffff000000b2', '00000000000000c3'];
    run.judge(read(), { toolCallId: 'c1', ref: { traceId, spanId: spans[0] } });
    run.judge(other(1), { toolCallId: 'c2', ref: { traceId, spanId: spans[1] } });
    run.judge(read(), { toolCallId: 'c3', ref: { traceId, spanId: spans[2] } });
    expect(run.memberRefs([read().argsHash])).toEqual([
      { traceId, spanId: spans[0] },
      { traceId, spanId: spans[2] },
    ]);
    expect(run.memberRefs([other(1).argsHash, read().argsHash]).map((r) => r.spanId)).toEqual(spans);
  });

  it('keeps none while the rolling detectors are off and no guard is armed (OpenClaw default)', () => {
    const run = new LoopRun({ config: resolveLoopDetectionConfig({}) });
    run.judge(read(), { toolCallId: 'c1', ref: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) } });
    expect(run.memberRefs([read().argsHash])).toEqual([]);
    run.arm();
    run.judge(read(), { toolCallId: 'c2', ref: { traceId: 'a'.repeat(32), spanId: 'c'.repeat(16) } });
    expect(run.memberRefs([read().argsHash])).toEqual([{ traceId: 'a'.repeat(32), spanId: 'c'.repeat(16) }]);
  });
});
