/**
 * `SpanGuard` beyond OpenClaw's rules, driven without OpenTelemetry: model calls charge their
 * run, span references for evidence, shadow mode, and recovery settled at a run's end.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, resolveLoopDetectionConfig, type Digester } from '../../src/engine-entry.js';
import type { RecoveryResolution } from '../../src/engine/recovery/recovery-watch.js';
import * as sc from '../../src/semconv.js';
import { DEFAULT_ADAPTERS } from '../../src/spans/adapters/index.js';
import type { RunReleaseReason } from '../../src/spans/run-registry.js';
import { SpanGuard, type SpanGuardOptions } from '../../src/spans/span-guard.js';
import { AdapterSpanReader } from '../../src/spans/span-reading.js';
import { silentLogger } from '../../src/util/logger.js';
import { plainSpans, type TestSpan } from '../helpers/plain-spans.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const span = plainSpans(TRACE);

const W2C3 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, criticalThreshold: 3 });

function guardWith(options: Partial<SpanGuardOptions<TestSpan>> = {}) {
  const released: Array<{ reason: RunReleaseReason; settled?: RecoveryResolution }> = [];
  let now = 0;
  const guard = new SpanGuard<TestSpan>({
    reader: new AdapterSpanReader(DEFAULT_ADAPTERS, digester),
    configFor: () => W2C3,
    logger: silentLogger,
    clock: () => (now += 10),
    runIdleTtlMs: 1_000_000,
    maxLiveRuns: 10,
    onRelease: (_run, reason, settled) => released.push({ reason, settled }),
    ...options,
  });
  const root = span('invoke_agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-1' });
  guard.start(root, root.spanContext());
  /** One turn: a model call reporting `tokens` (ended), then the same `read` call (started and ended). */
  const turn = (tokens: number) => {
    const chat = span('chat', { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat' });
    guard.start(chat, chat.spanContext(), { parent: root });
    guard.spend(chat, tokens);
    guard.close(chat);
    const tool = span('execute_tool read', {
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"path":"/a"}',
      [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'same',
    });
    const started = guard.start(tool, tool.spanContext(), { parent: root });
    guard.finish(tool);
    guard.close(tool);
    return { started, tool };
  };
  return { guard, root, turn, released };
}

describe('SpanGuard: cost, evidence, shadow, recovery', () => {
  it('a model call charges the live run of its parent; before the first tool call, or outside a run, nothing', () => {
    const { guard, root, turn } = guardWith();
    turn(100); // the run's state is created by its first tool call, after this model call
    turn(50);
    turn(25);
    const run = guard.runOf(root)!;
    expect(run.loop.tokensSpent).toBe(75);
    const stray = span('chat', {});
    expect(guard.spend(stray, 1_000)).toBeUndefined();
    expect(run.loop.tokensSpent).toBe(75);
  });

  it('a budget blocks before the count threshold; keepCallRefs keeps the calls for the links', () => {
    const { guard, root, turn } = guardWith({ budget: { tokens: 150 }, keepCallRefs: () => true });
    const first = turn(100);
    turn(100); // 100 after the first call
    const third = turn(100); // warning (count 2) at 200 tokens: past the budget
    expect(third.started?.verdict?.check).toMatchObject({ blocked: true, budgetExceeded: 'tokens', wastedTokens: 200 });
    const refs = guard.runOf(root)!.loop.memberRefs(third.started!.verdict!.check.window!.signatures);
    expect(refs[0]).toEqual({ traceId: TRACE, spanId: first.tool.spanContext().spanId });
    expect(refs).toHaveLength(3);
  });

  it('without keepCallRefs no span reference is kept', () => {
    const { guard, root, turn } = guardWith();
    const { started } = turn(0);
    expect(guard.runOf(root)!.loop.memberRefs([started!.call!.argsHash])).toEqual([]);
  });

  it('shadow mode: the critical blocks nothing', () => {
    const { turn } = guardWith({ shadow: true });
    [1, 2, 3].forEach(() => turn(0));
    const fourth = turn(0);
    expect(fourth.started?.verdict?.check).toMatchObject({ blocked: false, verdict: { level: 'critical' } });
  });

  it('a watch still open when the run root ends is settled as run_ended and handed to onRelease', () => {
    const { guard, root, turn, released } = guardWith({ recoveryWindow: 3 });
    [1, 2].forEach(() => turn(0));
    const warned = turn(0);
    expect(warned.started?.verdict?.check.emit).toBe(true);
    guard.close(root, TRACE);
    expect(released).toEqual([
      {
        reason: 'root-ended',
        settled: { outcome: 'run_ended', level: 'warning', detector: 'generic_repeat', toolName: 'read' },
      },
    ]);
  });
});
