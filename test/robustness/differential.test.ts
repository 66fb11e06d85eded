/**
 * Differential test: the engine (`LoopSession`, `detectToolCallLoop`, `ToolCallHistory`)
 * against the scan-based reference model of OpenClaw's recording, derived quantities and decision order in test/helpers/reference-model.ts,
 * on random histories: tools from a small set, args and results from small sets so repeats
 * happen, pending records, unknown-tool errors, outcomes matched by call id or not, several
 * run ids (blank and padded ones included) plus unscoped, small random thresholds and
 * history sizes, and detector toggles.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  resolveLoopDetectionConfig,
  type LoopDetectionConfig,
  type ResolvedLoopDetectionConfig,
} from '../../src/config/index.js';
import {
  detectToolCallLoop,
  LoopRun,
  ToolCallHistory,
  type LoopVerdict,
  type ToolCallRecord,
  type ToolCallSignature,
} from '../../src/engine-entry.js';
import {
  ReferenceSession,
  referenceDetect,
  type ReferenceRecord,
  type ReferenceVerdict,
} from '../helpers/reference-model.js';
import { fcParams, fuzzTimeout, reportCount } from './fuzz-runs.js';

const TOOLS = ['read', 'write', 'exec', 'process', 'command_status'] as const;
const ARGS = ['a', 'b', 'c'] as const;
const RESULTS = ['r0', 'r1', 'r2'] as const;
const UNKNOWN = ['ghost', 'phantom'] as const;
const RUNS = [undefined, '', '  ', 'run-1', ' run-1 ', 'run-2', 'run-3'] as const;

type Op =
  | { kind: 'call'; run: number; tool: number; arg: number; withCallId: boolean }
  | { kind: 'outcome'; pick: number; result: number; unknown: number; byCallId: 'same' | 'none' | 'other' }
  | { kind: 'orphan'; run: number; tool: number; arg: number; result: number; unknown: number; withCallId: boolean }
  | { kind: 'probe'; run: number; tool: number; arg: number };

const runIndex = fc.nat({ max: RUNS.length - 1 });
const toolIndex = fc.nat({ max: TOOLS.length - 1 });
const argIndex = fc.nat({ max: ARGS.length - 1 });
/** -1 = a plain result; 0..1 = an unknown-tool error naming UNKNOWN[i]; 2 = a plain error. */
const unknownIndex = fc.integer({ min: -1, max: UNKNOWN.length });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      run: runIndex,
      tool: toolIndex,
      arg: argIndex,
      withCallId: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('outcome' as const),
      pick: fc.nat(),
      result: fc.nat({ max: RESULTS.length - 1 }),
      unknown: unknownIndex,
      byCallId: fc.constantFrom('same' as const, 'none' as const, 'other' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('orphan' as const),
      run: runIndex,
      tool: toolIndex,
      arg: argIndex,
      result: fc.nat({ max: RESULTS.length - 1 }),
      unknown: unknownIndex,
      withCallId: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('probe' as const), run: runIndex, tool: toolIndex, arg: argIndex }),
  },
);

const configArb: fc.Arbitrary<LoopDetectionConfig> = fc.record(
  {
    enabled: fc.oneof(
      { weight: 8, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    historySize: fc.integer({ min: 1, max: 14 }),
    warningThreshold: fc.integer({ min: 1, max: 6 }),
    criticalThreshold: fc.integer({ min: 1, max: 9 }),
    globalCircuitBreakerThreshold: fc.integer({ min: 1, max: 12 }),
    unknownToolThreshold: fc.integer({ min: 1, max: 6 }),
    detectors: fc.record({ genericRepeat: fc.boolean(), knownPollNoProgress: fc.boolean(), pingPong: fc.boolean() }),
  },
  { requiredKeys: ['enabled'] },
);

/** How a signature is derived from a tool and an arg: the engine's form, or a foreign pre-computed hash. */
type HashStyle = 'tool-prefixed' | 'foreign';

/** A call in one of the session's runs. */
type RunCall = ToolCallSignature & { readonly runId?: string };

function signature(tool: string, arg: string, run: string | undefined, style: HashStyle): RunCall {
  const knownPoll = tool === 'command_status' || (tool === 'process' && arg !== 'c');
  const argsHash = style === 'tool-prefixed' ? `${tool}:${arg}` : `h:${arg}`;
  return run === undefined
    ? { toolName: tool, argsHash, knownPoll }
    : { toolName: tool, argsHash, knownPoll, runId: run };
}

function outcomeOf(result: number, unknown: number): { resultHash: string; unknownToolName?: string } {
  if (unknown === -1) return { resultHash: RESULTS[result] };
  if (unknown === UNKNOWN.length) return { resultHash: `error:boom-${result}` };
  return { resultHash: `error:unknown-${UNKNOWN[unknown]}`, unknownToolName: UNKNOWN[unknown] };
}

/** The verdict fields the spec defines, without engine-only extras. */
function comparable(verdict: LoopVerdict | ReferenceVerdict | undefined): Record<string, unknown> | undefined {
  if (!verdict) return undefined;
  const out: Record<string, unknown> = {
    level: verdict.level,
    detector: verdict.detector,
    count: verdict.count,
    message: verdict.message,
    warningKey: verdict.warningKey,
  };
  if (verdict.pairedToolName !== undefined) out.pairedToolName = verdict.pairedToolName;
  return out;
}

function comparableRecords(records: ReadonlyArray<ToolCallRecord | ReferenceRecord>): Array<Record<string, unknown>> {
  return records.map((record) => {
    const out: Record<string, unknown> = { toolName: record.toolName, argsHash: record.argsHash };
    for (const key of ['toolCallId', 'runId', 'resultHash', 'unknownToolName'] as const) {
      if (record[key] !== undefined) out[key] = record[key];
    }
    return out;
  });
}

interface Pending {
  readonly sig: RunCall;
  readonly toolCallId?: string;
}

/** Replays `ops` on the engine and on the reference, comparing after every step. */
function replay(block: LoopDetectionConfig, ops: readonly Op[], style: HashStyle): void {
  const config: ResolvedLoopDetectionConfig = resolveLoopDetectionConfig(block);
  // One OpenClaw session: a run per run id, all sharing one history window.
  const history = new ToolCallHistory();
  const runs = new Map<string, LoopRun>();
  const runOf = (runId: string | undefined): LoopRun => {
    const key = runId?.trim() ?? '';
    let run = runs.get(key);
    if (!run) runs.set(key, (run = new LoopRun({ config, runId: key, history })));
    return run;
  };
  const reference = new ReferenceSession();
  const pending: Pending[] = [];
  let nextId = 0;

  ops.forEach((op, step) => {
    const where = `step ${step} ${JSON.stringify(op)}`;
    switch (op.kind) {
      case 'call': {
        const sig = signature(TOOLS[op.tool], ARGS[op.arg], RUNS[op.run], style);
        const got = runOf(sig.runId).check(sig);
        const want = reference.check(sig, config);
        expect(comparable(got.verdict), where).toEqual(comparable(want.verdict));
        expect({ emit: got.emit, blocked: got.blocked }, where).toEqual({ emit: want.emit, blocked: want.blocked });
        if (!got.blocked) {
          const toolCallId = op.withCallId ? `call-${nextId++}` : undefined;
          const call = { toolName: sig.toolName, argsHash: sig.argsHash, toolCallId, runId: sig.runId };
          runOf(sig.runId).recordCall(sig, toolCallId);
          if (config.trackHistory) reference.history.recordCall(call, config.historySize);
          pending.push({ sig, toolCallId });
        }
        break;
      }
      case 'outcome':
      case 'orphan': {
        let sig: RunCall;
        let toolCallId: string | undefined;
        if (op.kind === 'outcome' && pending.length > 0) {
          const [picked] = pending.splice(op.pick % pending.length, 1);
          sig = picked.sig;
          toolCallId =
            op.byCallId === 'same' ? picked.toolCallId : op.byCallId === 'other' ? `other-${nextId++}` : undefined;
        } else {
          const o =
            op.kind === 'orphan'
              ? op
              : {
                  run: op.pick % RUNS.length,
                  tool: op.pick % TOOLS.length,
                  arg: op.pick % ARGS.length,
                  withCallId: false,
                };
          sig = signature(TOOLS[o.tool], ARGS[o.arg], RUNS[o.run], style);
          toolCallId = o.withCallId ? `orphan-${nextId++}` : undefined;
        }
        const outcome = {
          toolName: sig.toolName,
          argsHash: sig.argsHash,
          toolCallId,
          runId: sig.runId,
          ...outcomeOf(op.result, op.unknown),
        };
        runOf(sig.runId).recordOutcome(sig, toolCallId, {
          resultHash: outcome.resultHash,
          unknownToolName: outcome.unknownToolName,
        });
        if (config.trackHistory) reference.history.recordOutcome(outcome, config.historySize);
        break;
      }
      case 'probe': {
        const sig = signature(TOOLS[op.tool], ARGS[op.arg], RUNS[op.run], style);
        const got = detectToolCallLoop(history.view(sig.runId), sig, config)?.verdict;
        const want = referenceDetect(reference.history, sig, config);
        expect(comparable(got), where).toEqual(comparable(want));
        break;
      }
    }
    expect(history.size, where).toBeLessThanOrEqual(config.historySize);
    expect(comparableRecords(history.records()), where).toEqual(comparableRecords(reference.history.records));
  });

  // Final sweep: every possible next call in every run agrees.
  for (const run of RUNS) {
    for (const tool of TOOLS) {
      for (const arg of ARGS) {
        const sig = signature(tool, arg, run, style);
        const got = detectToolCallLoop(history.view(sig.runId), sig, config)?.verdict;
        expect(comparable(got), `final ${tool} ${arg} ${JSON.stringify(run)}`).toEqual(
          comparable(referenceDetect(reference.history, sig, config)),
        );
      }
    }
  }
}

describe('differential: engine vs the scan-based reference model', () => {
  it(
    'LoopRun.check / detectToolCallLoop / history records equal the reference on random histories',
    () => {
      const started = performance.now();
      const params = fcParams(300);
      fc.assert(
        fc.property(configArb, fc.array(opArb, { minLength: 1, maxLength: 80 }), (block, ops) =>
          replay(block, ops, 'tool-prefixed'),
        ),
        params,
      );
      reportCount('differential (engine vs reference)', params.numRuns, started);
    },
    fuzzTimeout(30_000),
  );

  it('known sticky/ping-pong/unknown-tool shapes agree (fixed examples, always run)', () => {
    const C = {
      enabled: true,
      warningThreshold: 2,
      criticalThreshold: 3,
      globalCircuitBreakerThreshold: 4,
      unknownToolThreshold: 2,
      historySize: 10,
    };
    const alternate: Op[] = [];
    for (let i = 0; i < 6; i += 1) {
      alternate.push({ kind: 'call', run: 3, tool: 0, arg: i % 2, withCallId: true });
      alternate.push({ kind: 'outcome', pick: 0, result: i % 2, unknown: -1, byCallId: 'same' });
    }
    alternate.push({ kind: 'probe', run: 3, tool: 0, arg: 0 });
    replay(C, alternate, 'tool-prefixed');
    const unknown: Op[] = [];
    for (let i = 0; i < 4; i += 1) {
      unknown.push({ kind: 'call', run: 0, tool: 2, arg: i % 3, withCallId: false });
      unknown.push({ kind: 'outcome', pick: 0, result: 0, unknown: 0, byCallId: 'none' });
    }
    replay(C, unknown, 'tool-prefixed');
  });

  // OpenClaw: noProgressStreak and recentCount look only at records with the same toolName
  // AND argsHash. A pre-computed `tool_loop.args_hash` need not start with the
  // tool name, so two tools can share one argsHash.
  // The engine keys signatures by tool and args hash (history.ts `signatureKey`).
  it('pre-computed args hashes shared by two tools: streaks and counts stay per tool', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb, { minLength: 1, maxLength: 80 }), (block, ops) =>
        replay(block, ops, 'foreign'),
      ),
      { ...fcParams(300), numRuns: 300 },
    );
  }, 30_000);
});
