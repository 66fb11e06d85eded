/**
 * `SpanGuard`, the one span lifecycle, driven without OpenTelemetry: plain span objects read
 * through the real adapters. What it returns is what the processor emits and the replay counts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createDigester,
  resolveLoopDetectionConfig,
  type Digester,
  type ResolvedLoopDetectionConfig,
} from '../../src/engine-entry.js';
import * as sc from '../../src/semconv.js';
import { DEFAULT_ADAPTERS } from '../../src/spans/adapters/index.js';
import type { RunReleaseReason } from '../../src/spans/run-registry.js';
import { traceRunKey } from '../../src/spans/run-scope.js';
import { SpanGuard, type ToolSpanFinished } from '../../src/spans/span-guard.js';
import { AdapterSpanReader } from '../../src/spans/span-reading.js';
import { silentLogger } from '../../src/util/logger.js';
import { plainSpans, type TestSpan } from '../helpers/plain-spans.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const span = plainSpans('t1');

function guardWith(config: ResolvedLoopDetectionConfig, maxLiveRuns = 10) {
  const released: RunReleaseReason[] = [];
  const guard = new SpanGuard<TestSpan>({
    reader: new AdapterSpanReader(DEFAULT_ADAPTERS, digester),
    configFor: () => config,
    logger: silentLogger,
    clock: () => 0,
    runIdleTtlMs: 1000,
    maxLiveRuns,
    onRelease: (_run, reason) => released.push(reason),
  });
  return { guard, released };
}

/** What the guard made of an ending tool span (`undefined` for any other span). */
function finishTool(guard: SpanGuard<TestSpan>, ended: TestSpan): ToolSpanFinished<TestSpan> | undefined {
  const finished = guard.finish(ended);
  return finished && 'tool' in finished ? finished : undefined;
}

const W2C3 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, criticalThreshold: 3 });
const readSpan = (args: unknown = { path: '/a' }) =>
  span('execute_tool read', {
    [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
    [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
  });

describe('SpanGuard', () => {
  it('returns undefined for a span that concerns no run, and opens a run for a run root', () => {
    const { guard } = guardWith(W2C3);
    expect(guard.start(span('GET /', { 'http.method': 'GET' }), { traceId: 't1', spanId: 'x' })).toBeUndefined();
    const root = span('invoke_agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'job-1' });
    expect(guard.start(root, root.spanContext())).toMatchObject({
      scope: { runKey: 'job-1', isRunRoot: true },
      run: undefined,
      armed: undefined,
    });
    expect(guard.liveRuns).toBe(0); // a run's state is created by its first tool call or compaction retry
  });

  it('judges at start, records outcomes at end, and vetoes a blocked call (recorded as a veto, its outcome never)', () => {
    const { guard } = guardWith(W2C3);
    const root = span('invoke_agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'job-1' });
    guard.start(root, root.spanContext());
    const levels: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const tool = readSpan();
      const started = guard.start(tool, tool.spanContext(), { parent: root })!;
      levels.push(started.verdict ? `${started.verdict.phase}:${started.verdict.check.verdict.level}` : 'none');
      tool.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = 'same';
      const finished = guard.finish(tool)!;
      expect(finished).toMatchObject({ scope: { runKey: 'job-1' }, call: started.call, matchedAtEnd: false });
      guard.close(tool);
    }
    expect(levels).toEqual(['none', 'none', 'start:warning', 'start:critical', 'start:critical']);
    // Blocked calls are recorded as loop vetoes (no hash); their own outcomes never: 3 + 2 records.
    const records = guard.peek('job-1')!.loop.records();
    expect(records).toHaveLength(5);
    expect(records.slice(3).map((record) => [record.outcomeKind, record.resultHash])).toEqual([
      ['tool-loop-veto', undefined],
      ['tool-loop-veto', undefined],
    ]);
    expect(guard.close(root, 't1')).toBe('job-1');
    expect(guard.liveRuns).toBe(0);
  });

  it('judges a call whose arguments arrive only at end when it ends (detected, recorded, not vetoed)', () => {
    const { guard } = guardWith(W2C3);
    const verdicts: Array<string | undefined> = [];
    for (let i = 0; i < 4; i += 1) {
      const tool = span('execute_tool read', { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' });
      expect(guard.start(tool, tool.spanContext())?.verdict).toBeUndefined();
      tool.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = '{"path":"/late"}';
      tool.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = 'same';
      const finished = finishTool(guard, tool)!;
      verdicts.push(finished.verdict && `${finished.verdict.phase}:${finished.verdict.check.verdict.level}`);
    }
    expect(verdicts).toEqual([undefined, undefined, 'end:warning', 'end:critical']);
    expect(guard.peek(traceRunKey('t1'))!.loop.records().length).toBe(4);
  });

  it('arms the post-compaction guard on compaction.retry (with its message) and aborts on the window', () => {
    const { guard } = guardWith(resolveLoopDetectionConfig({}));
    const root = span('invoke_agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'job-2' });
    guard.start(root, root.spanContext());
    const marker = span('compaction.retry', { [sc.ATTR_COMPACTION_RETRY]: true });
    expect(guard.start(marker, marker.spanContext(), { parent: root })?.armed).toEqual({
      windowSize: 3,
      message: 'post-compaction guard armed for 3 attempts',
    });
    const aborts = [1, 2, 3].map(() => {
      const tool = readSpan();
      guard.start(tool, tool.spanContext(), { parent: root });
      tool.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = 'same';
      return finishTool(guard, tool)?.abort?.count;
    });
    expect(aborts).toEqual([undefined, undefined, 3]);
  });

  it('releases every run with releaseAll, and evicts beyond maxLiveRuns', () => {
    const { guard, released } = guardWith(W2C3, 1);
    for (const runId of ['a', 'b']) {
      const tool = span('execute_tool read', {
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
        [sc.ATTR_TOOL_LOOP_RUN_ID]: runId,
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{}',
      });
      guard.start(tool, tool.spanContext());
    }
    expect(released).toEqual(['capacity']);
    guard.releaseAll('shutdown');
    expect(released).toEqual(['capacity', 'shutdown']);
    expect(guard.liveRuns).toBe(0);
  });
});
