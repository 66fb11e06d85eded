/** `redundant_call`: calls that ask again for an answer the run already has, across signatures. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineHarness } from '../../helpers/engine-harness.js';
import { fcParams } from '../../robustness/fuzz-runs.js';

const BUDGET = { enabled: true, redundantCallBudget: 4, detectors: { redundantCall: true } } as const;
/** The verdict unless it is only a warning (the ladder's step before the budget). */
const critical = (verdict: { level: string } | undefined) => (verdict?.level === 'critical' ? verdict : undefined);
const A = { path: 'src/adapters.py' };
const B = { path: 'src/models.py' };
const EDIT_1 = { patch: 'edit 29:29 …' };
const EDIT_2 = { patch: 'edit 29:30 …' };

describe('redundant_call', () => {
  it('counts repeats across signatures: rereading two files, each too few times for a per-call rule', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let lap = 0; lap < 3; lap += 1) {
      expect(h.run('read', A, { result: 'contents of A' }).blocked).toBe(false);
      expect(h.run('read', B, { result: 'contents of B' }).blocked).toBe(false);
    }
    const checked = h.check('read', A);
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'redundant_call',
      count: 4,
      warningKey: `redundant:read:${h.argsHash('read', A)}`,
      loopSignatures: [h.argsHash('read', A), h.argsHash('read', B)],
    });
    expect(checked.verdict!.message).toContain('budget 4');
  });

  it('psf/requests-2674: resent rejected edits and a reread file, with only failures in between', async () => {
    const h = await EngineHarness.create(BUDGET);
    const rejected = (n: number) => ({ error: `Your proposed edit has introduced new syntax error(s) #${n}` });
    h.run('open', A, { result: 'file A' });
    h.run('open', A, { result: 'file A' });
    h.run('edit', EDIT_1, rejected(1));
    h.run('edit', EDIT_2, rejected(2));
    h.run('edit', EDIT_1, rejected(1));
    h.run('edit', EDIT_2, rejected(2));
    expect(critical(h.detect('open', A))).toBeUndefined();
    h.run('edit', EDIT_1, rejected(1));
    expect(h.detect('open', A)).toMatchObject({ detector: 'redundant_call', count: 4 });
  });

  it('progress makes a known answer stale: after an edit that went through, rereading is not blocked', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 5; i += 1) h.run('read', A, { result: 'before' });
    expect(h.detect('read', A)).toMatchObject({ detector: 'redundant_call', count: 4 });
    h.run('edit', EDIT_1, { result: 'applied' });
    expect(h.detect('read', A)).toBeUndefined();
    // Reading it again got the same text: nothing has changed since, so it is known again.
    h.run('read', A, { result: 'before' });
    expect(h.detect('read', A)).toBeUndefined();
  });

  it('a run of repeats that the agent left is not a loop: the count starts afresh after progress', async () => {
    const h = await EngineHarness.create(BUDGET);
    const invalid = { error: 'The search API calls seem not valid.' };
    for (let i = 0; i < 4; i += 1) h.run('(no_valid_api_call)', { calls: [] }, invalid);
    h.run('search', { q: 'Foo' }, { result: 'Found 1 class Foo in foo.py' });
    for (let i = 0; i < 2; i += 1) h.run('(no_valid_api_call)', { calls: [] }, invalid);
    expect(critical(h.detect('(no_valid_api_call)', { calls: [] }))).toBeUndefined();
    for (let i = 0; i < 2; i += 1) h.run('(no_valid_api_call)', { calls: [] }, invalid);
    expect(h.detect('(no_valid_api_call)', { calls: [] })).toMatchObject({ level: 'critical', count: 4 });
  });

  it('warns before it blocks: a warning from half the budget on, then the critical at the budget', async () => {
    const h = await EngineHarness.create(BUDGET);
    h.run('read', A, { result: 'same' });
    const levels = [];
    for (let i = 0; i < 5; i += 1) {
      const checked = h.run('read', A, { result: 'same' });
      levels.push(checked.emit ? checked.verdict!.level : '-');
    }
    // The count of 3 is in the warning's first bucket (3 / 2): emitted once, as OpenClaw's buckets do.
    expect(levels).toEqual(['-', '-', 'warning', '-', 'critical']);
  });

  it('a question the run has not asked is never blocked, however many repeats came before', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 6; i += 1) h.run('read', A, { result: 'same' });
    expect(h.detect('read', { path: 'another/file.py' })).toBeUndefined();
  });

  it('a repeat that got a new result is not redundant, and counts as progress', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 4; i += 1) h.run('read', A, { result: `version ${'abcd'[i]}` });
    expect(h.detect('read', A)).toBeUndefined();
  });

  it('blocked calls count: each further request for a known answer is blocked again', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 5; i += 1) h.run('read', A, { result: 'same' });
    // A failure is not progress: the known answer stays current.
    expect(h.run('read', B, { error: 'ENOENT' }).blocked).toBe(false);
    expect(h.run('read', A, { result: 'same' }).verdict).toMatchObject({ detector: 'redundant_call', count: 4 });
    expect(h.run('read', A, { result: 'same' }).verdict).toMatchObject({ detector: 'redundant_call', count: 5 });
  });

  it('calls admitted in one batch count as repeats when their answers are known', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let lap = 0; lap < 2; lap += 1) {
      h.run('read', A, { result: 'contents of A' });
      h.run('read', B, { result: 'contents of B' });
    }
    const run = h.runOf();
    expect(run.judge(h.sig('read', A), { toolCallId: 'batch-1' }).blocked).toBe(false);
    expect(run.judge(h.sig('read', B), { toolCallId: 'batch-2' }).blocked).toBe(false);
    expect(run.judge(h.sig('read', A), { toolCallId: 'batch-3' }).verdict).toMatchObject({
      detector: 'redundant_call',
      count: 4,
    });
  });

  it('known polls are exempt: asking again is what they are for', async () => {
    const h = await EngineHarness.create(BUDGET);
    const poll = { action: 'poll', sessionId: 's1' };
    for (let i = 0; i < 8; i += 1) h.run('process', poll, { result: 'still running' });
    expect(h.detect('process', poll)?.detector).not.toBe('redundant_call');
  });

  it('unchanged polls before a reread do not count: polling again is what polls are for', async () => {
    const h = await EngineHarness.create(BUDGET);
    const poll = { action: 'poll', sessionId: 's1' };
    for (let i = 0; i < 5; i += 1) h.run('process', poll, { result: 'still running' });
    h.run('read', A, { result: 'contents of A' });
    expect(h.detect('read', A)).toBeUndefined();
  });

  it('a batch re-asking calls whose answers went stale does not count them', async () => {
    const h = await EngineHarness.create(BUDGET);
    for (let i = 0; i < 3; i += 1) h.run('read', A, { result: 'contents of A' });
    h.run('edit', EDIT_1, { result: 'applied' });
    h.run('read', B, { result: 'contents of B' });
    const run = h.runOf();
    expect(run.judge(h.sig('read', A), { toolCallId: 'batch-1' }).blocked).toBe(false);
    expect(run.judge(h.sig('read', A), { toolCallId: 'batch-2' }).blocked).toBe(false);
    // Two redundant reads of A before the edit, none since: B's first repeat is not the fourth.
    expect(run.judge(h.sig('read', B), { toolCallId: 'batch-3' }).blocked).toBe(false);
  });

  it('is off by default', async () => {
    const h = await EngineHarness.create({ enabled: true, redundantCallBudget: 1 });
    for (let i = 0; i < 9; i += 1) h.run('read', A, { result: 'same' });
    expect(h.detect('read', A)).toBeUndefined();
  });

  it('property: a run whose every result is new for its call is never blocked', async () => {
    const call = fc.record({ args: fc.integer({ min: 0, max: 3 }), failed: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 60 }), async (calls) => {
        const h = await EngineHarness.create({ ...BUDGET, redundantCallBudget: 1 });
        calls.forEach((c, i) => {
          const outcome = c.failed ? { error: `failure ${i}` } : { result: `result ${i}` };
          expect(h.run('read', { n: c.args }, outcome).blocked, `call ${i}`).toBe(false);
        });
      }),
      fcParams(100),
    );
  });

  it('property: once budget calls got known answers, asking one again is blocked unless there was progress since', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 30 }),
        async (budget, order) => {
          const h = await EngineHarness.create({ ...BUDGET, redundantCallBudget: budget });
          // The model: file n always reads the same; reading a file for the first time is progress.
          const answeredAt = new Map<number, number>();
          let progressAt = -1;
          let repeats = 0;
          order.forEach((n, i) => {
            const checked = h.run('read', { n }, { result: `file ${n}` });
            const known = answeredAt.get(n);
            expect(checked.blocked).toBe(known !== undefined && known >= progressAt && repeats >= budget);
            if (known !== undefined) repeats += 1;
            if (checked.blocked) return;
            if (known === undefined) {
              progressAt = i;
              repeats = 0;
            }
            answeredAt.set(n, i);
          });
        },
      ),
      fcParams(100),
    );
  });

  it('property: the count follows the history window as old records are evicted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 3, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 }),
        async (budget, historySize, order) => {
          const h = await EngineHarness.create({ ...BUDGET, redundantCallBudget: budget, historySize });
          // The model, recomputed over the newest historySize records (a blocked call is kept as a veto).
          const window: Array<{ n: number; veto: boolean }> = [];
          order.forEach((n, i) => {
            const newestAnswer = new Map<number, number>();
            let progressAt = -1;
            let redundant = 0;
            window.forEach((record, j) => {
              if (newestAnswer.has(record.n)) redundant += 1;
              else if (!record.veto) {
                progressAt = j;
                redundant = 0;
              }
              if (!record.veto) newestAnswer.set(record.n, j);
            });
            const known = newestAnswer.get(n);
            const blocked = known !== undefined && known >= progressAt && redundant >= budget;
            expect(h.run('read', { n }, { result: `file ${n}` }).blocked, `call ${i}`).toBe(blocked);
            window.push({ n, veto: blocked });
            if (window.length > historySize) window.shift();
          });
        },
      ),
      fcParams(200),
    );
  });
});
