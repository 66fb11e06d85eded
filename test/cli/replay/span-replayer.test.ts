/**
 * The analyzer's replay drives the span guard and only counts what it decides: calls are
 * numbered at their span start (late-recognised ones at their end), blocks are sticky, and a
 * trajectory is replayed as one run of sequential tool spans.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, resolveLoopDetectionConfig, type Digester } from '../../../src/engine-entry.js';
import * as sc from '../../../src/semconv.js';
import { DEFAULT_ADAPTERS } from '../../../src/spans/adapters/index.js';
import { CallSequence } from '../../../src/cli/replay/call-sequence.js';
import { prepareSpan } from '../../../src/cli/replay/prepared-span.js';
import { SpanReplayer, type ReplayObserver } from '../../../src/cli/replay/span-replayer.js';
import { pooledSpan, replayInTimeOrder, replayTraces } from '../../../src/cli/replay/trace-replay.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const W2C3 = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 2, criticalThreshold: 3 });
const options = { configFor: () => W2C3, runIdleTtlMs: 60_000, maxLiveRuns: 10 };

/** A trajectory run of five identical reads with identical results, steps 1–5. */
function loopingSequence(): CallSequence {
  const sequence = new CallSequence('run.jsonl');
  for (let step = 1; step <= 5; step += 1) {
    sequence.add(digester, {
      line: step,
      step,
      tool: 'read',
      args: { path: '/a' },
      result: 'same',
      error: false,
      synthetic: false,
    });
  }
  return sequence;
}

describe('CallSequence + SpanReplayer (trajectories)', () => {
  it('counts warnings, sticky blocks and the first block of a looping run, with steps', () => {
    const sequence = loopingSequence();
    const replayer = new SpanReplayer(options);
    sequence.replayAll(replayer);
    expect(replayer.runs).toHaveLength(1);
    const { counters, events } = replayer.runs[0].replay;
    expect(counters).toMatchObject({ calls: 5, warnings: 1, blocks: 2, firstBlock: 4, firstBlockStep: 4 });
    expect(events.map((e) => `${e.call}:${e.step}:${e.phase}:${e.action}`)).toEqual([
      '3:3:start:warn',
      '4:4:start:block',
      '5:5:start:block',
    ]);
  });

  it('without events (sweeps) the counters are the same', () => {
    const sequence = loopingSequence();
    const replayer = new SpanReplayer({ ...options, keepEvents: false });
    sequence.replayAll(replayer);
    expect(replayer.runs[0].replay.counters).toMatchObject({ calls: 5, warnings: 1, blocks: 2, firstBlock: 4 });
    expect(replayer.runs[0].replay.events).toEqual([]);
  });
});

describe('replayTraces (recorded spans)', () => {
  const toolSpan = (spanId: string, startUs: number, attributes: Record<string, unknown>) => {
    const view = { name: 'execute_tool read', attributes, status: { code: 0 } };
    const ids = { traceId: 'trace-1', spanId };
    return pooledSpan({
      traceId: 'trace-1',
      spanId,
      parentSpanId: 'root',
      startUs,
      endUs: startUs + 10,
      process: 'svc',
      source: 'traces.json',
      prepared: prepareSpan(DEFAULT_ADAPTERS, digester, { ...view, spanContext: () => ids } as never),
    });
  };

  const readCalls = () =>
    [1, 2, 3, 4].map((n) =>
      toolSpan(`t${n}`, n * 100, {
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"path":"/a"}',
        [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'same',
      }),
    );

  /** An observer that lists what the guard decided, and the runs it released. */
  function listing(): ReplayObserver & { seen: string[] } {
    const seen: string[] = [];
    return {
      seen,
      started: (span, started) => {
        if (started.verdict)
          seen.push(`${span.spanId}:start:${started.verdict.check.verdict.level}:${started.scope.runId}`);
      },
      finished: (span, finished) => {
        if (finished.verdict) seen.push(`${span.spanId}:end:${finished.verdict.check.verdict.level}`);
      },
      released: (run, reason) => seen.push(`released:${run.runId}:${reason}`),
    };
  }

  it('a long-lived replay shows an observer what the guard decided and keeps no run reports', () => {
    const observer = listing();
    const replayer = new SpanReplayer({ ...options, keepRuns: false, observer });
    // Two batches of one trace whose root is not among them: the calls go on in one run.
    const [first, second] = [readCalls().slice(0, 2), readCalls().slice(2)];
    replayInTimeOrder(first, { replayerOf: () => replayer });
    replayInTimeOrder(second, { replayerOf: () => replayer });
    expect(observer.seen).toEqual(['t3:start:warning:trace-1', 't4:start:critical:trace-1']);
    expect(replayer.liveRuns).toBe(1);
    expect(replayer.runs).toEqual([]);
    replayer.finish('idle');
    expect(observer.seen.at(-1)).toBe('released:trace-1:idle');
  });

  it('starts a span whose parent is not among the spans under the stand-in it is given', () => {
    const observer = listing();
    const replayer = new SpanReplayer({ ...options, keepRuns: false, observer });
    const standIn = pooledSpan({
      traceId: 'trace-1',
      spanId: '~stand-in',
      parentSpanId: '~',
      startUs: 0,
      endUs: 0,
      process: 'svc',
      prepared: { hint: { runId: 'session-7' }, compactionRetry: false },
    });
    replayer.start(standIn, undefined, 0);
    const asked: string[] = [];
    replayInTimeOrder(readCalls(), {
      replayerOf: () => replayer,
      missingParent: (span) => {
        asked.push(span.spanId);
        return standIn;
      },
    });
    expect(asked).toEqual(['t1', 't2', 't3', 't4']);
    // The calls took the stand-in's run.
    expect(observer.seen).toEqual(['t3:start:warning:session-7', 't4:start:critical:session-7']);
  });

  it('replays a run root and its tool spans in time order through the guard, one run per run id', () => {
    const root = pooledSpan({
      traceId: 'trace-1',
      spanId: 'root',
      startUs: 0,
      endUs: 1_000,
      process: 'svc',
      source: 'traces.json',
      prepared: prepareSpan(DEFAULT_ADAPTERS, digester, {
        name: 'invoke_agent',
        attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'job-1', [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-1' },
      }),
    });
    const tools = [1, 2, 3, 4].map((n) =>
      toolSpan(`t${n}`, n * 100, {
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"path":"/a"}',
        [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'same',
      }),
    );
    // Input order does not matter: the timeline orders starts and ends.
    const runs = replayTraces([...tools].reverse().concat(root), options);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runKey: 'job-1', agentId: 'agent-1', process: 'svc', source: 'traces.json' });
    expect(runs[0].replay.events.map((e) => `${e.call}:${e.action}`)).toEqual(['3:warn', '4:block']);
  });
});
