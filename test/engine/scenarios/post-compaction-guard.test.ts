/** OpenClaw's loop-detection scenarios 70–87 (Post-compaction guard) (windowSize 3 unless stated). */
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../../src/config/index.js';
import {
  blockedToolResult,
  CompactionLoopPersistedError,
  PostCompactionGuard,
  type GuardVerdict,
} from '../../../src/engine-entry.js';
import { EngineHarness, R, RecordingLogger } from '../../helpers/engine-harness.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await EngineHarness.create(undefined);
});

/** A hashed (tool, args, result) triple, as the guard observes it. */
interface Triple {
  readonly toolName: string;
  readonly argsHash: string;
  readonly resultHash: string;
}

/** An observation triple; the result is a plain label hashed through the real projection. */
function obs(toolName: string, params: unknown, result: string): Triple {
  const resultHash = h.resultHash(toolName, params, R(result, { ok: true }));
  if (resultHash === undefined) throw new Error('expected a result hash');
  return { toolName, argsHash: h.argsHash(toolName, params), resultHash };
}

function guard(windowSize = 3, enabled = true) {
  const logger = new RecordingLogger();
  return { guard: new PostCompactionGuard({ enabled, windowSize, logger }), logger };
}

const X = () => obs('gateway', { action: 'lookup', path: 'x' }, 'r1');
const Y = () => obs('read', { path: '/y' }, 'r1');

/** The guard observes one triple: the call and its result hash. */
const see = (g: PostCompactionGuard, triple: Triple): GuardVerdict => g.observe(triple, triple.resultHash);

const expectNoAbort = (verdict: GuardVerdict) => expect(verdict.shouldAbort).toBe(false);

const persistedMessage = (tool: string, n: number, window: number) =>
  `CRITICAL: tool ${tool} repeated ${n} times with identical arguments and identical results within ${window} attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.`;

describe('post-compaction guard', () => {
  it('scenario 70: never armed; observe (read,/x,r1) → no abort, armed false', () => {
    const { guard: g } = guard();
    const verdict = see(g, obs('read', { path: '/x' }, 'r1'));
    expect(verdict).toEqual({ shouldAbort: false, armed: false, remaining: 0 });
    expect(g.armed).toBe(false);
  });

  it('scenario 71: arm → armed, remaining 3; three observations → 2, 1, 0, then disarmed', () => {
    const { guard: g } = guard();
    expect(g.armed).toBe(false);
    g.arm();
    expect(g.armed).toBe(true);
    expect(g.remainingAttempts).toBe(3);
    const remaining: number[] = [];
    const armed: boolean[] = [];
    for (const path of ['/a', '/b', '/c']) {
      const verdict = see(g, obs('read', { path }, 'r1'));
      remaining.push(verdict.remaining);
      armed.push(verdict.armed);
    }
    expect(remaining).toEqual([2, 1, 0]);
    expect(armed).toEqual([true, true, false]);
    expect(g.armed).toBe(false);
    expect(g.remainingAttempts).toBe(0);
  });

  it('scenario 72: arm; three identical gateway triples → the third aborts (compaction_loop_persisted, count 3)', () => {
    const { guard: g, logger } = guard();
    g.arm();
    expectNoAbort(see(g, X()));
    expectNoAbort(see(g, X()));
    const verdict = see(g, X());
    expect(verdict).toMatchObject({
      shouldAbort: true,
      detector: 'compaction_loop_persisted',
      count: 3,
      toolName: 'gateway',
    });
    expect(logger.at('error')).toEqual([
      'post-compaction loop persisted: tool=gateway repeated 3 times with identical args+result post-compaction',
    ]);
  });

  it('scenario 73: arm; same read with results r1, r2, r3 → no abort', () => {
    const { guard: g } = guard();
    g.arm();
    for (const r of ['r1', 'r2', 'r3']) expectNoAbort(see(g, obs('read', { path: '/x' }, r)));
    expect(g.armed).toBe(false);
  });

  it('scenario 74: arm; reads of /a, /b, /c with the same result → no abort', () => {
    const { guard: g } = guard();
    g.arm();
    for (const path of ['/a', '/b', '/c']) expectNoAbort(see(g, obs('read', { path }, 'r1')));
  });

  it('scenario 75: arm; x, x, y → no abort and the window closes; a fourth x → no abort (not armed)', () => {
    const { guard: g } = guard();
    g.arm();
    expectNoAbort(see(g, X()));
    expectNoAbort(see(g, X()));
    expectNoAbort(see(g, Y()));
    expect(g.armed).toBe(false);
    expect(see(g, X())).toEqual({ shouldAbort: false, armed: false, remaining: 0 });
  });

  it('scenario 76: windowSize 2; arm; x, x → the second aborts (count 2); a third x → not armed', () => {
    const { guard: g } = guard(2);
    g.arm();
    expectNoAbort(see(g, X()));
    const verdict = see(g, X());
    expect(verdict).toMatchObject({ shouldAbort: true, count: 2, armed: false, remaining: 0 });
    expect(verdict.shouldAbort && verdict.message).toBe(persistedMessage('gateway', 2, 2));
    expect(see(g, X())).toEqual({ shouldAbort: false, armed: false, remaining: 0 });
  });

  it('scenario 77: arm, observe 3, re-arm → armed, remaining equal to the window', () => {
    const { guard: g, logger } = guard();
    g.arm();
    see(g, X());
    see(g, Y());
    see(g, X());
    expect(g.armed).toBe(false);
    g.arm();
    expect(g.armed).toBe(true);
    expect(g.remainingAttempts).toBe(3);
    // A fresh window: the earlier observations do not count.
    expectNoAbort(see(g, X()));
    expectNoAbort(see(g, X()));
    expect(see(g, X()).shouldAbort).toBe(true);
    expect(logger.at('info')).toEqual([
      'post-compaction guard armed for 3 attempts',
      'post-compaction window closed: toolCalls=3 preCompactionRepeats=0',
      'post-compaction guard armed for 3 attempts',
    ]);
  });

  it('scenario 78: enabled false; arm; x, x, x → no abort', () => {
    const { guard: g, logger } = guard(3, false);
    g.arm();
    expect(g.armed).toBe(false);
    for (let i = 0; i < 3; i += 1) expect(see(g, X())).toEqual({ shouldAbort: false, armed: false, remaining: 0 });
    expect(logger.lines).toEqual([]);
  });

  it('scenario 79: arm; three different calls → disarmed, remaining 0', () => {
    const { guard: g } = guard();
    g.arm();
    expectNoAbort(see(g, obs('read', { path: '/1' }, 'a')));
    expectNoAbort(see(g, obs('write', { path: '/2' }, 'b')));
    const last = see(g, obs('exec', { command: 'ls' }, 'c'));
    expect(last).toEqual({
      shouldAbort: false,
      armed: false,
      remaining: 0,
      windowClosed: { toolCalls: 3, preCompactionRepeats: 0, repeatedTools: [] },
    });
    expect(g.armed).toBe(false);
    expect(g.remainingAttempts).toBe(0);
  });

  it('scenario 80: CompactionLoopPersistedError (our name for PostCompactionLoopPersistedError)', () => {
    // Deliberate difference: the error is named CompactionLoopPersistedError and
    // carries `code` = 'compaction_loop_persisted'.
    const error = new CompactionLoopPersistedError('loop persisted', {
      detector: 'compaction_loop_persisted',
      count: 4,
      toolName: 'gateway',
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(CompactionLoopPersistedError);
    expect(error.name).toBe('CompactionLoopPersistedError');
    expect(error.code).toBe('compaction_loop_persisted');
    expect(error.message).toBe('loop persisted');
    expect(error).toMatchObject({ detector: 'compaction_loop_persisted', count: 4, toolName: 'gateway' });

    const { guard: g } = guard();
    g.arm();
    see(g, X());
    see(g, X());
    const verdict = see(g, X());
    if (!verdict.shouldAbort) throw new Error('expected an abort');
    const fromVerdict = CompactionLoopPersistedError.fromVerdict(verdict);
    expect(fromVerdict).toBeInstanceOf(CompactionLoopPersistedError);
    expect(fromVerdict.message).toBe(verdict.message);
    expect(fromVerdict).toMatchObject({
      count: 3,
      toolName: 'gateway',
      detector: 'compaction_loop_persisted',
      code: 'compaction_loop_persisted',
    });
  });

  it('scenario 81: windowSize 1; arm; any single hashed outcome → abort, count 1', () => {
    const { guard: g } = guard(1);
    g.arm();
    const verdict = see(g, obs('read', { path: '/anything' }, 'fresh'));
    expect(verdict).toMatchObject({
      shouldAbort: true,
      count: 1,
      toolName: 'read',
      detector: 'compaction_loop_persisted',
    });
    expect(verdict.shouldAbort && verdict.message).toBe(persistedMessage('read', 1, 1));
  });

  it('scenario 82: exact abort message for 3 × gateway', () => {
    const { guard: g } = guard();
    g.arm();
    see(g, X());
    see(g, X());
    const verdict = see(g, X());
    expect(verdict.shouldAbort && verdict.message).toBe(
      'CRITICAL: tool gateway repeated 3 times with identical arguments and identical results within 3 attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.',
    );
  });

  it('scenario 83: no tools.loopDetection block → guard active, window 3, arming logs "armed for 3 attempts"', () => {
    const resolved = resolveLoopDetectionConfig(undefined);
    expect(resolved.enabled).toBe(false);
    expect(resolved.postCompactionGuard).toEqual({ enabled: true, windowSize: 3 });
    // Also on when enabled is unset or true; off only for an explicit false.
    expect(resolveLoopDetectionConfig({}).postCompactionGuard.enabled).toBe(true);
    expect(resolveLoopDetectionConfig({ enabled: true }).postCompactionGuard.enabled).toBe(true);
    expect(resolveLoopDetectionConfig({ enabled: false }).postCompactionGuard.enabled).toBe(false);
    const logger = new RecordingLogger();
    const g = new PostCompactionGuard({ ...resolved.postCompactionGuard, logger });
    g.arm();
    expect(g.armed).toBe(true);
    expect(logger.lines).toEqual([{ level: 'info', message: 'post-compaction guard armed for 3 attempts' }]);
  });

  it('scenario 84: loop-vetoed calls give no hash, so they are not observed and use no window slot', () => {
    const { guard: g } = guard();
    const params = { action: 'lookup', path: 'x' };
    const argsHash = h.argsHash('gateway', params);
    /** Feeds the guard only hashed outcomes, as OpenClaw's guard does. */
    const observeResult = (result: unknown): GuardVerdict | undefined => {
      const resultHash = h.resultHash('gateway', params, result);
      return resultHash === undefined ? undefined : see(g, { toolName: 'gateway', argsHash, resultHash });
    };
    const same = R('r1', { ok: true });
    const veto = blockedToolResult('CRITICAL: blocked');
    g.arm();
    expectNoAbort(observeResult(same)!);
    expect(observeResult(veto)).toBeUndefined();
    expect(observeResult(R('blocked', { status: 'blocked', deniedReason: 'tool-loop' }))).toBeUndefined();
    expect(g.remainingAttempts).toBe(2);
    expectNoAbort(observeResult(same)!);
    expect(observeResult(veto)).toBeUndefined();
    expect(observeResult(same)).toMatchObject({ shouldAbort: true, count: 3 });
  });

  it('scenario 85: exec outcomes differing only in durationMs are the identical triple', () => {
    const { guard: g } = guard();
    const params = { command: 'curl gateway/health' };
    const argsHash = h.argsHash('exec', params);
    const triple = (i: number): Triple => ({
      toolName: 'exec',
      argsHash,
      resultHash: h.resultHash(
        'exec',
        params,
        R('ok', { status: 'completed', exitCode: 0, durationMs: 100 + i, aggregated: 'ok' }),
      )!,
    });
    expect(triple(0).resultHash).toBe(triple(1).resultHash);
    g.arm();
    expectNoAbort(see(g, triple(0)));
    expectNoAbort(see(g, triple(1)));
    expect(see(g, triple(2))).toMatchObject({ shouldAbort: true, count: 3, toolName: 'exec' });
  });

  it('scenario 86: the window counts calls repeating a pre-compaction (tool, args) and logs them when it closes', async () => {
    const run = await EngineHarness.create(undefined);
    run.run('read', { path: '/report.md' }, { result: R('v1', { ok: true }) });
    run.run('exec', { command: 'ls' }, { result: R('ok', { ok: true }) });
    run.runOf().arm();
    const verdicts = [
      run.runOf().complete(run.sig('read', { path: '/report.md' }), undefined, {
        resultHash: run.resultHash('read', { path: '/report.md' }, R('v2', { ok: true })),
      }),
      run.runOf().complete(run.sig('read', { path: '/other.md' }), undefined, {
        resultHash: run.resultHash('read', { path: '/other.md' }, R('fresh', { ok: true })),
      }),
      run.runOf().complete(run.sig('gateway', { action: 'probe' }), undefined, {
        resultHash: run.resultHash('gateway', { action: 'probe' }, R('r1', { ok: true })),
      }),
    ];
    expect(verdicts).toEqual([undefined, undefined, undefined]);
    const closed = run.logger.at('info').filter((line) => line.startsWith('post-compaction window closed'));
    expect(closed).toEqual(['post-compaction window closed: toolCalls=3 preCompactionRepeats=1 tools=read']);
    expect(closed[0]).toContain('toolCalls=3');
    expect(closed[0]).toContain('preCompactionRepeats=1');
    expect(closed[0]).toContain('read');
  });

  it('scenario 87: the baseline holds the newest 16 outcomes: a re-read evicted from it is no repeat', async () => {
    const run = await EngineHarness.create(undefined);
    for (let i = 0; i < 20; i += 1) run.run('read', { path: `/old-${i}.md` }, { result: R(`old ${i}`, { ok: true }) });
    const guard = run.runOf().arm();
    const observe = (path: string) => {
      const params = { path };
      return guard.observe(run.sig('read', params), run.resultHash('read', params, R('again', { ok: true }))!);
    };
    expect(observe('/old-0.md')).toEqual({ shouldAbort: false, armed: true, remaining: 2 });
    expect(observe('/old-19.md')).toEqual({ shouldAbort: false, armed: true, remaining: 1 });
    expect(observe('/new.md')).toEqual({
      shouldAbort: false,
      armed: false,
      remaining: 0,
      windowClosed: { toolCalls: 3, preCompactionRepeats: 1, repeatedTools: ['read'] },
    });
  });

  it("the abort verdict carries the window's pre-compaction repeats", async () => {
    const run = await EngineHarness.create(undefined);
    const params = { action: 'lookup', path: 'x' };
    run.run('gateway', params, { result: R('r1', { ok: true }) });
    run.runOf().arm();
    const outcome = { resultHash: run.resultHash('gateway', params, R('r1', { ok: true })) };
    run.runOf().complete(run.sig('gateway', params), undefined, outcome);
    run.runOf().complete(run.sig('gateway', params), undefined, outcome);
    expect(run.runOf().complete(run.sig('gateway', params), undefined, outcome)).toMatchObject({
      shouldAbort: true,
      count: 3,
      preCompactionRepeats: 3,
    });
  });
});
