/**
 * Deferred outcomes in the history: a successful result kept unhashed answers every query as its
 * hash would, is hashed only where a query compares it, never when its record leaves unread,
 * and what waits unhashed is bounded by a shared budget.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../../src/engine-entry.js';
import { DeferredOutcome } from '../../../src/engine/history/deferred-outcome.js';
import {
  DeferredOutcomeBudget,
  type DeferredOutcomeHolder,
} from '../../../src/engine/history/deferred-outcome-budget.js';
import { RunHistoryView } from '../../../src/engine/history/run-history-view.js';
import type { RunLog } from '../../../src/engine/history/run-log.js';
import { LoopRun } from '../../../src/engine/loop-run.js';
import type { OutcomeHash } from '../../../src/engine/types.js';
import { appendCall, attachOutcome, lengthOf, recordsOf, RUN_LOGS } from '../../helpers/run-logs.js';

const hex = (n: number) => n.toString(16).padStart(16, '0');
const argsHashOf = (tool: string, args: number) => `${tool}:${hex(args)}`;

/** A deferred outcome of `resultHash` (of a `write` to `target`), kept, that counts how often it was hashed. */
function deferred(resultHash: string, hashed: { count: number }, bytes = 100, target?: string): DeferredOutcome {
  const outcome = new DeferredOutcome(
    {
      hash: () => {
        hashed.count += 1;
        return target === undefined
          ? { resultHash }
          : { resultHash, outcomeKind: 'write-mutation', mutationTargetHash: target };
      },
      mayKeep: () => (target === undefined ? {} : { mutationTargetHash: target }),
    },
    bytes,
  );
  // As a run does before it keeps one unhashed.
  outcome.keep();
  return outcome;
}

interface Entry {
  readonly tool: number;
  readonly args: number;
  /** 0–2: a success with that result (deferred in one history); 3: an error; 4: a veto; 5: still pending. */
  readonly outcome: number;
}

/** `write` records are mutations of the target named by their arguments. */
const TOOLS = ['read', 'write'];
const targetOf = (tool: string, args: number) => (tool === 'write' ? `target-${args}` : undefined);

/** An outcome held by no record (the budget alone is under test). */
const NO_HOLDER: DeferredOutcomeHolder = { settleDeferred: () => undefined };

/** What the detectors ask of a run's history, for every signature and tool of the pools. */
function answers(log: RunLog): unknown {
  const view = new RunHistoryView(log);
  const out: unknown[] = [view.recentSignatures(16)];
  for (const tool of TOOLS) {
    out.push(view.unknownToolStreak(tool));
    for (let args = 0; args < 2; args += 1) {
      const argsHash = argsHashOf(tool, args);
      const pingPong = view.pingPong(argsHash);
      out.push(
        view.argumentChurn(tool, argsHash),
        view.noProgressStreak(argsHash, tool),
        view.recentCount(argsHash, tool),
        pingPong,
        view.pingPongNoProgressEvidence(pingPong),
        view.resultCycle(argsHash, tool, 2),
        view.redundantCalls(argsHash, tool),
        view.identicalCalls(argsHash, tool, 90),
        view.writeTargetChurn(argsHash, 'target-0'),
        view.typedErrorRepeat(tool),
      );
    }
  }
  return out;
}

function fill(log: RunLog, entries: readonly Entry[], lazy: boolean, hashed: { count: number }): void {
  for (const { tool, args, outcome } of entries) {
    const toolName = TOOLS[tool];
    const call = { toolName, argsHash: argsHashOf(toolName, args) };
    appendCall(log, call, 6);
    if (outcome === 5) continue;
    if (outcome === 4) {
      attachOutcome(log, call, { outcomeKind: 'tool-loop-veto' }, 6);
      continue;
    }
    const resultHash = outcome === 3 ? `error:${hex(99)}` : hex(outcome + 1);
    const target = outcome < 3 ? targetOf(toolName, args) : undefined;
    const hashedOutcome: OutcomeHash =
      target === undefined ? { resultHash } : { resultHash, outcomeKind: 'write-mutation', mutationTargetHash: target };
    attachOutcome(log, call, lazy && outcome < 3 ? deferred(resultHash, hashed, 100, target) : hashedOutcome, 6);
  }
}

describe.each(RUN_LOGS)('deferred outcomes in the %s log', (_, newLog) => {
  it('answer every query as their hashes do (property)', () => {
    const entry = fc.record({ tool: fc.nat(1), args: fc.nat(1), outcome: fc.nat(5) });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 24 }), (entries) => {
        const hashed = { count: 0 };
        const lazy = newLog();
        const eager = newLog();
        fill(lazy, entries, true, hashed);
        fill(eager, entries, false, hashed);
        expect(answers(lazy)).toEqual(answers(eager));
        expect(recordsOf(lazy)).toEqual(recordsOf(eager));
      }),
      { numRuns: 500 },
    );
  });

  it('are hashed only by a query that compares them, and never once evicted unread', () => {
    const hashed = { count: 0 };
    const budget = new DeferredOutcomeBudget(10_000);
    const log = newLog();
    for (let i = 0; i < 8; i += 1) {
      const call = { toolName: 'read', argsHash: argsHashOf('read', i) };
      const outcome = deferred(hex(i + 1), hashed);
      appendCall(log, call, 6);
      budget.admit(outcome, log, attachOutcome(log, call, outcome, 6));
      // What the default detectors ask of every call with new arguments.
      const view = new RunHistoryView(log);
      const next = argsHashOf('read', i + 1);
      view.argumentChurn('read', next);
      view.noProgressStreak(next, 'read');
      view.pingPongNoProgressEvidence(view.pingPong(next));
      view.recentSignatures(16);
      view.unknownToolStreak('read');
    }
    expect(lengthOf(log)).toBe(6);
    expect(hashed.count).toBe(0);
    // The two evicted let their content go.
    expect([budget.heldOutcomes, budget.heldBytes]).toEqual([6, 600]);
    // The same call again: its earlier record's hash is compared now (and only that one).
    expect(new RunHistoryView(log).noProgressStreak(argsHashOf('read', 7), 'read')).toEqual({
      count: 1,
      latestResultHash: hex(8),
    });
    expect(hashed.count).toBe(1);
    expect(recordsOf(log).map((r) => r.resultHash)).toEqual([3, 4, 5, 6, 7, 8].map(hex));
    expect(hashed.count).toBe(6);
  });

  it('a deferred write answers for its mutation target without being hashed', () => {
    const hashed = { count: 0 };
    const log = newLog();
    for (let i = 0; i < 3; i += 1) {
      const call = { toolName: 'write', argsHash: argsHashOf('write', i) };
      appendCall(log, call, 30);
      attachOutcome(log, call, deferred(hex(i), hashed, 100, 'target-0'), 30);
    }
    const view = new RunHistoryView(log);
    expect(view.writeTargetChurn(argsHashOf('write', 3), 'target-0')).toEqual({ count: 3, variantCount: 3 });
    expect(view.typedErrorRepeat('write')).toEqual({ count: 0 });
    expect(hashed.count).toBe(0);
    expect(recordsOf(log)[0]).toMatchObject({ outcomeKind: 'write-mutation', mutationTargetHash: 'target-0' });
    expect(hashed.count).toBe(3);
  });

  it('a record whose outcome the budget hashed keeps the hash alone, not the outcome', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const budget = new DeferredOutcomeBudget(1_000_000, 1);
    const hashed = { count: 0 };
    const log = newLog();
    const attach = (n: number): WeakRef<DeferredOutcome> => {
      const call = { toolName: 'write', argsHash: argsHashOf('write', n) };
      const outcome = deferred(hex(n + 1), hashed, 100, `target-${n}`);
      appendCall(log, call, 30);
      budget.admit(outcome, log, attachOutcome(log, call, outcome, 30));
      return new WeakRef(outcome);
    };
    const first = attach(0);
    const second = attach(1);
    expect(hashed.count).toBe(1);
    // A WeakRef's target lives at least until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(first.deref()).toBeUndefined();
    expect(second.deref()).toBeDefined();
    expect(recordsOf(log).map(({ resultHash, mutationTargetHash }) => [resultHash, mutationTargetHash])).toEqual([
      [hex(1), 'target-0'],
      [hex(2), 'target-1'],
    ]);
  });
});

describe('DeferredOutcomeBudget', () => {
  it('a budget hashes the oldest outcomes still held once it is over its limit', () => {
    const budget = new DeferredOutcomeBudget(250);
    const hashed = { count: 0 };
    const outcomes = [1, 2, 3].map((n) => deferred(hex(n), hashed));
    budget.admit(outcomes[0], NO_HOLDER, 0);
    budget.admit(outcomes[1], NO_HOLDER, 0);
    expect([budget.heldBytes, budget.heldOutcomes, hashed.count]).toEqual([200, 2, 0]);
    outcomes[0].resolve(); // read by a detector: no longer held
    budget.admit(outcomes[2], NO_HOLDER, 0);
    expect([budget.heldBytes, hashed.count]).toEqual([200, 1]);
    const fourth = deferred(hex(4), hashed);
    budget.admit(fourth, NO_HOLDER, 0);
    expect(outcomes[1].resolved).toBe(true); // the oldest still held
    expect([budget.heldBytes, budget.heldOutcomes, hashed.count]).toEqual([200, 2, 2]);
    outcomes[2].drop();
    fourth.uncount();
    expect([budget.heldBytes, budget.heldOutcomes]).toEqual([0, 0]);
    expect(() => outcomes[2].resolve()).toThrow(/left the history/);
    expect(fourth.resolve()).toEqual({ resultHash: hex(4) }); // uncounted, still readable
  });

  it('a budget hashes the oldest outcomes still held once it holds more than its count', () => {
    const budget = new DeferredOutcomeBudget(1_000_000, 2);
    const hashed = { count: 0 };
    const outcomes = [1, 2, 3, 4].map((n) => deferred(hex(n), hashed));
    budget.admit(outcomes[0], NO_HOLDER, 0);
    budget.admit(outcomes[1], NO_HOLDER, 0);
    expect([budget.heldOutcomes, hashed.count]).toEqual([2, 0]);
    budget.admit(outcomes[2], NO_HOLDER, 0);
    expect(outcomes.map((o) => o.resolved)).toEqual([true, false, false, false]);
    outcomes[1].drop();
    budget.admit(outcomes[3], NO_HOLDER, 0);
    expect([budget.heldOutcomes, budget.heldBytes, hashed.count]).toEqual([2, 200, 1]);
  });

  it('a budget with many outcomes read or dropped keeps its queue short', () => {
    const budget = new DeferredOutcomeBudget(1_000_000);
    const hashed = { count: 0 };
    const kept = deferred(hex(0), hashed);
    budget.admit(kept, NO_HOLDER, 0);
    for (let i = 1; i < 5000; i += 1) {
      const outcome = deferred(hex(i), hashed);
      budget.admit(outcome, NO_HOLDER, 0);
      outcome.drop();
    }
    expect([budget.heldOutcomes, budget.heldBytes, hashed.count]).toEqual([1, 100, 0]);
    expect((budget as unknown as { outcomes: unknown[] }).outcomes.length).toBeLessThan(100);
  });
});

describe('LoopRun and deferred outcomes', () => {
  const read = (n: number) => ({ toolName: 'read', argsHash: argsHashOf('read', n), knownPoll: false });

  function run(config: Parameters<typeof resolveLoopDetectionConfig>[0], budget?: DeferredOutcomeBudget) {
    return new LoopRun({ config: resolveLoopDetectionConfig(config), now: () => 0, deferredOutcomes: budget });
  }

  function complete(loop: LoopRun, n: number, hashed: { count: number }): void {
    loop.judge(read(n));
    loop.complete(read(n), undefined, deferred(hex(n), hashed));
  }

  it('keeps results unhashed with a budget, and hashes them as they complete without one', () => {
    const budget = new DeferredOutcomeBudget(10_000);
    const hashed = { count: 0 };
    const lazy = run({ enabled: true }, budget);
    for (let n = 0; n < 3; n += 1) complete(lazy, n, hashed);
    expect([hashed.count, budget.heldOutcomes]).toEqual([0, 3]);
    lazy.released();
    expect([budget.heldOutcomes, budget.heldBytes]).toEqual([0, 0]);
    expect(lazy.records().map((r) => r.resultHash)).toEqual([0, 1, 2].map(hex));
    const eager = run({ enabled: true });
    for (let n = 0; n < 3; n += 1) complete(eager, n, hashed);
    expect(hashed.count).toBe(6);
  });

  it('hashes results as they complete while a guard window observes, or a detector reads across calls', () => {
    const budget = new DeferredOutcomeBudget(10_000);
    const armed = run({ enabled: true, postCompactionGuard: { windowSize: 2 } }, budget);
    const hashed = { count: 0 };
    complete(armed, 0, hashed);
    armed.arm();
    complete(armed, 1, hashed);
    complete(armed, 2, hashed);
    expect(hashed.count).toBe(2); // the guard observed both: its window of 2
    complete(armed, 3, hashed); // the window has closed
    expect(hashed.count).toBe(2);
    for (const detectors of [{ resultCycle: true }, { redundantCall: true }, { identicalCallBudget: true }]) {
      const counted = { count: 0 };
      const loop = run({ enabled: true, detectors }, budget);
      complete(loop, 0, counted);
      expect(counted.count).toBe(1);
    }
    // similar_outcome compares failures only, which are never deferred: a success stays unhashed.
    const failures = { count: 0 };
    complete(run({ enabled: true, detectors: { similarOutcome: true } }, budget), 0, failures);
    expect(failures.count).toBe(0);
    expect(budget.heldOutcomes).toBe(3); // calls 0 and 3 of the armed run, and the similar_outcome run's
  });

  it('hashes the result of a call made again as it completes, and one that may not stay unhashed', () => {
    const budget = new DeferredOutcomeBudget(10_000);
    const hashed = { count: 0 };
    const loop = run({ enabled: true }, budget);
    complete(loop, 0, hashed);
    complete(loop, 0, hashed); // its check compared the first result; its own is hashed as it completes
    expect([hashed.count, budget.heldOutcomes]).toEqual([2, 0]);
    loop.judge(read(1));
    loop.complete(
      read(1),
      undefined,
      new DeferredOutcome({ hash: () => ({ resultHash: hex(1) }), mayKeep: () => false }, 100),
    );
    expect(budget.heldOutcomes).toBe(0);
    expect(loop.records().map((r) => r.resultHash)).toEqual([0, 0, 1].map(hex));
  });

  it('with history off, never hashes a result nothing reads', () => {
    const budget = new DeferredOutcomeBudget(10_000);
    const hashed = { count: 0 };
    const off = run({ enabled: false, postCompactionGuard: { windowSize: 2 } }, budget);
    complete(off, 0, hashed);
    expect(hashed.count).toBe(0);
  });
});
