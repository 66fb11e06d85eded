/**
 * OpenClaw's terminal `exec` failure identity across changing arguments (PR #118071, volatile
 * text masked since PR #118402), and its typed-error identity (`typed_code`).
 */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const job = (i: number) => ({ command: `python job-${i}.py` });
const failure = (output: string, details: Record<string, unknown> = {}) =>
  R(output, { status: 'failed', exitCode: 1, aggregated: output, ...details });
const TRACEBACK = failure('Traceback (most recent call last):\nModuleNotFoundError: missing package');

describe('exec terminal failure identity', () => {
  it('20 failures `python job-i.py → Traceback: missing package`, then any exec → critical generic_repeat, count 20', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'exec', job, TRACEBACK);
    expect(h.records().every((record) => record.outcomeKind === 'terminal-exec-failure')).toBe(true);
    expect(h.check('exec', { command: 'python next-job.py' }).verdict).toMatchObject({
      level: 'critical',
      detector: 'generic_repeat',
      count: 20,
      message:
        'CRITICAL: Called exec with identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
      // The loop's members are the 20 failed jobs, each with its own arguments.
      loopSignatures: Array.from({ length: 20 }, (_, i) => h.argsHash('exec', job(i))),
    });
  });

  it('later vetoes raise the count until the breaker at 30', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'exec', job, TRACEBACK);
    const verdicts = Array.from({ length: 11 }, (_, i) => h.run('exec', job(100 + i), { result: TRACEBACK }).verdict!);
    expect(verdicts.map((v) => v.count)).toEqual([20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(verdicts.at(-1)!.detector).toBe('global_circuit_breaker');
  });

  it('failures despite drifting diagnostic metadata (times, dates with clock, attempts, durations, pids) share one identity', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'exec', job, (i: number) =>
      failure(
        `2026-11-${String((i % 9) + 1).padStart(2, '0')}T10:00:${String(i).padStart(2, '0')}Z attempt ${i}: ` +
          `failed after ${i * 3}ms (pid ${1000 + i}) at 10:11:${String(i).padStart(2, '0')}.5\nError: missing package`,
      ),
    );
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(20);
    expect(new Set(h.records().map((r) => r.failureIdentityHash)).size).toBe(1);
    expect(h.detect('exec', job(99))).toMatchObject({ level: 'critical', count: 20 });
  });

  it.each([
    ['exit-code-only output', R('(Command exited with code 1)', { status: 'completed', exitCode: 1 })],
    ['a success', R('ok', { status: 'completed', exitCode: 0, aggregated: 'ok' })],
    ['a timeout', failure('Traceback: missing package', { timedOut: true })],
    ['an Infinity exit code', failure('Traceback: missing package', { exitCode: Infinity })],
    ['a null exit code', failure('Traceback: missing package', { exitCode: null })],
  ])('%s never blocks across changing arguments', async (_name, result) => {
    const h = await EngineHarness.create(C0);
    h.completed(25, 'exec', job, result);
    expect(h.records().some((record) => record.outcomeKind === 'terminal-exec-failure')).toBe(false);
    expect(h.detect('exec', job(99))).toBeUndefined();
  });

  it.each([
    ['a new exit code', failure('Traceback: missing package', { exitCode: 2 })],
    ['a new diagnostic word', failure('Traceback: missing module')],
    ['a new number', failure('Traceback: missing package 7')],
    ['a new calendar date', failure('Traceback: missing package on 2026-11-02')],
  ])('%s starts a new streak', async (_name, changed) => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'exec', job, failure('Traceback: missing package on 2026-11-01'));
    h.completed(10, 'exec', (i: number) => job(10 + i), changed);
    expect(h.detect('exec', job(99))).toBeUndefined();
  });

  it('any other tool in between resets the streak (a read, a successful exec)', async () => {
    for (const between of [
      ['read', { path: '/log' }, R('log', { ok: true })],
      ['exec', { command: 'true' }, R('', { status: 'completed', exitCode: 0, aggregated: '' })],
    ] as const) {
      const h = await EngineHarness.create(C0);
      h.completed(10, 'exec', job, TRACEBACK);
      h.complete(between[0], between[1], { result: between[2] });
      h.completed(10, 'exec', (i: number) => job(10 + i), TRACEBACK);
      expect(h.detect('exec', job(99))).toBeUndefined();
    }
  });

  it('meeting the current arguments again after other arguments ends the scan (an older tail)', async () => {
    const h = await EngineHarness.create(C0);
    const current = { command: 'make test' };
    h.completed(5, 'exec', current, TRACEBACK);
    h.completed(15, 'exec', job, TRACEBACK);
    // Newest first: 15 other commands, then `make test` again → the scan stops there.
    expect(h.history.view().terminalExecFailureStreak(h.argsHash('exec', current)).count).toBe(15);
    expect(h.history.view().terminalExecFailureStreak(h.argsHash('exec', job(99))).count).toBe(20);
  });

  it('the result is max(ordinary, terminal): identical calls keep their own streak', async () => {
    const h = await EngineHarness.create(C0);
    const params = { command: 'make' };
    h.completed(20, 'exec', params, TRACEBACK);
    expect(h.detect('exec', params)).toMatchObject({
      count: 20,
      message:
        'CRITICAL: Called exec with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
    });
  });

  it('detectors.execFailureIdentity off: changing arguments never add up', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { execFailureIdentity: false } });
    h.completed(20, 'exec', job, TRACEBACK);
    expect(h.detect('exec', job(99))).toBeUndefined();
  });
});

describe('typed-error identity (typed_code)', () => {
  const conflict = (i: number) => ({
    error: new Error(`save failed: typed_code=EXPECTED_VERSION_CONFLICT (rev ${i})`),
  });
  const save = (i: number) => ({ doc: 'a', rev: i });

  it('3 failures with one typed code across changing arguments → warning; 5 → critical', async () => {
    const h = await EngineHarness.create(C0);
    for (let i = 0; i < 3; i += 1) h.complete('save_doc', save(i), conflict(i));
    expect(h.detect('save_doc', save(99))).toMatchObject({
      level: 'warning',
      detector: 'typed_error_repeat',
      count: 3,
      warningKey: 'typed-error:save_doc:EXPECTED_VERSION_CONFLICT',
      message:
        'WARNING: save_doc has failed 3 times in this run with the same typed error (EXPECTED_VERSION_CONFLICT) even as the arguments changed. A typed failure earns at most one retry and that retry is spent. Stop retrying: record the outcome, park or roll back the affected target, and end the turn with a final summary of what remains blocked.',
    });
    h.complete('save_doc', save(3), { result: R('saved', { ok: true }) });
    h.complete('save_doc', save(4), conflict(4));
    h.complete('save_doc', save(5), { result: R('{"ok":false,"typed_code":"EXPECTED_VERSION_CONFLICT"}') });
    expect(h.detect('save_doc', save(99))).toMatchObject({
      level: 'critical',
      detector: 'typed_error_repeat',
      count: 5,
      // The failed saves are the loop's members; the save that succeeded is not.
      loopSignatures: [0, 1, 2, 4, 5].map((i) => h.argsHash('save_doc', save(i))),
      message:
        'CRITICAL: save_doc failed 5 times in this run with the same typed error (EXPECTED_VERSION_CONFLICT) even as the arguments changed. Session execution blocked to prevent resource waste. Do not retry this call again: record the outcome, park or roll back the affected target, and end the turn with a final summary of what remains blocked.',
    });
  });

  it('the newest stamped record is the anchor: A, A, B, B counts two', async () => {
    const h = await EngineHarness.create({ enabled: true, typedErrorWarningThreshold: 2 });
    for (const [i, code] of ['A_CODE', 'A_CODE', 'B_CODE', 'B_CODE'].entries())
      h.complete('save_doc', save(i), { error: `typed_code=${code}` });
    expect(h.detect('save_doc', save(9))).toMatchObject({ count: 2, warningKey: 'typed-error:save_doc:B_CODE' });
  });

  it('exec is excluded, and tool_call folds its inner tool id into the family', async () => {
    const h = await EngineHarness.create(C0);
    for (let i = 0; i < 5; i += 1) h.complete('exec', { command: `c${i}` }, { error: 'typed_code=BOOM' });
    expect(h.detect('exec', { command: 'c9' })).toBeUndefined();
    for (let i = 0; i < 5; i += 1)
      h.complete('tool_call', { id: 'story.read', args: { i } }, { error: 'typed_code=GONE' });
    expect(h.detect('tool_call', { id: 'story.read', args: { i: 9 } })).toMatchObject({ level: 'critical', count: 5 });
    expect(h.detect('tool_call', { id: 'story.control', args: { i: 9 } })).toBeUndefined();
  });

  it('typed failures evicted from the window no longer count', async () => {
    const h = await EngineHarness.create({ enabled: true, historySize: 6 });
    for (let i = 0; i < 3; i += 1) h.complete('save_doc', save(i), conflict(i));
    expect(h.detect('save_doc', save(99))).toMatchObject({ detector: 'typed_error_repeat', count: 3 });
    h.completed(4, 'read', (i: number) => ({ path: `/f${i}` }), R('ok'));
    expect(h.detect('save_doc', save(99))).toBeUndefined();
  });

  it('detectors.typedErrorRepeat off: no typed-error verdict', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { typedErrorRepeat: false } });
    for (let i = 0; i < 5; i += 1) h.complete('save_doc', save(i), conflict(i));
    expect(h.detect('save_doc', save(99))).toBeUndefined();
  });
});
