/**
 * Acceptance through the public API, with the real SDK: loop budgets and wasted tokens/time read
 * from real chat spans, the evidence span of a critical (links to every member call), shadow
 * mode (helpers run every tool, `would_*` events and metrics), and recovery tracking.
 */
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, type DataPoint } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  ToolLoopSpanProcessor,
  traceRun,
  traceToolCall,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { CollectingReader } from '../helpers/collecting-reader.js';
import { R, recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

afterEach(() => resetOtelGlobals());

/** W3 / C6: a warning on the 4th identical call, a block on the 7th. */
const W3C6 = { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 6 } } };

interface Setup {
  readonly processor: ToolLoopSpanProcessor;
  readonly provider: BasicTracerProvider;
  readonly exporter: InMemorySpanExporter;
  readonly tracer: Tracer;
  readonly reader: CollectingReader;
  spans(): Promise<ReadableSpan[]>;
}

/** Our processor first, then a BatchSpanProcessor over an in-memory exporter; metrics on a real reader. */
async function setup(options: ToolLoopSpanProcessorOptions & { evidenceProvider?: 'own' | 'none' }): Promise<Setup> {
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  const reader = new CollectingReader();
  const { evidenceProvider = 'own', ...rest } = options;
  const holder: { provider?: BasicTracerProvider } = {};
  // A clock that moves on every reading: model calls and tool calls never share a millisecond.
  let now = 0;
  const processor = await ToolLoopSpanProcessor.create({
    config: W3C6,
    clock: () => (now += 1),
    meterProvider: new MeterProvider({ readers: [reader] }),
    ...(evidenceProvider === 'own' ? { tracerProvider: () => holder.provider } : {}),
    ...rest,
  });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new BatchSpanProcessor(exporter)] });
  holder.provider = provider;
  const tracer = provider.getTracer('cost-evidence-tests');
  return {
    processor,
    provider,
    exporter,
    tracer,
    reader,
    spans: async () => {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
  };
}

/** A model call of the run: a real chat span carrying the GenAI usage attributes. */
function chat(tracer: Tracer, input: number, output: number): void {
  const span = tracer.startSpan('chat gpt-test', {
    kind: SpanKind.CLIENT,
    attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat', 'gen_ai.request.model': 'gpt-test' },
  });
  span.setAttribute(sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS, input);
  span.setAttribute(sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, output);
  span.end();
}

/** `n` turns of one agent: a model call, then the same `read` (same result) through traceToolCall. */
async function loopingRun(s: Setup, runId: string, n: number, execute = vi.fn(() => R('same'))) {
  const results = await traceRun(s.tracer, { runId, endOnSecondCritical: false }, async () => {
    const out: unknown[] = [];
    for (let i = 0; i < n; i += 1) {
      chat(s.tracer, 900, 100);
      out.push(await traceToolCall(s.tracer, { name: 'read', args: { path: '/a' }, callId: `call-${i}` }, execute));
    }
    return out;
  });
  return { results, execute };
}

const eventsOf = (spans: ReadableSpan[], name: string) =>
  spans.flatMap((span) => span.events.filter((e) => e.name === name).map((event) => ({ span, event })));

async function points(reader: CollectingReader, metric: string): Promise<Array<DataPoint<number>>> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === metric);
  return (found?.dataPoints ?? []) as Array<DataPoint<number>>;
}

describe('wasted tokens and time on loop events', () => {
  it('counts the usage of the chat spans between the loop calls, in the same run only', async () => {
    const s = await setup({});
    await Promise.all([
      loopingRun(s, 'run-a', 4),
      traceRun(s.tracer, { runId: 'run-b' }, () => chat(s.tracer, 5e6, 0)),
    ]);
    const [{ event }] = eventsOf(await s.spans(), sc.EVENT_TOOL_LOOP_WARNING);
    // Three model calls after the loop's first member call (the one before it is not the loop's).
    expect(event.attributes?.[sc.ATTR_TOOL_LOOP_WASTED_TOKENS]).toBe(3_000);
    expect(event.attributes?.[sc.ATTR_TOOL_LOOP_WASTED_MS]).toEqual(expect.any(Number));
    expect(event.attributes?.[sc.ATTR_TOOL_LOOP_WINDOW_CALL_IDS]).toEqual(['call-0', 'call-1', 'call-2']);
    expect(event.attributes?.[sc.ATTR_TOOL_LOOP_FIRST_CALL_ID]).toBe('call-0');
    expect(event.attributes?.[sc.ATTR_TOOL_LOOP_BUDGET]).toBeUndefined();
  });

  it('a token budget blocks the loop before the count threshold; without one the same run is only warned', async () => {
    const budgeted = await setup({ budgetTokens: 4_000 });
    const { execute } = await loopingRun(budgeted, 'run-budget', 7);
    const spans = await budgeted.spans();
    const blocked = eventsOf(spans, sc.EVENT_TOOL_LOOP_BLOCKED);
    // Call 3 is warned at 3 000 tokens since call 0; call 4, at 4 000, is blocked (count 4 < 6).
    expect(execute).toHaveBeenCalledTimes(4);
    expect(blocked[0].event.attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
      [sc.ATTR_TOOL_LOOP_BUDGET]: sc.BUDGET_TOKENS,
      [sc.ATTR_TOOL_LOOP_WASTED_TOKENS]: 4_000,
      [sc.ATTR_TOOL_LOOP_COUNT]: 4,
    });
    expect(String(blocked[0].event.attributes?.[sc.ATTR_TOOL_LOOP_MESSAGE])).toMatch(/past the budget of 4000/);

    const unbudgeted = await setup({});
    const control = await loopingRun(unbudgeted, 'run-control', 6);
    expect(control.execute).toHaveBeenCalledTimes(6);
    expect(eventsOf(await unbudgeted.spans(), sc.EVENT_TOOL_LOOP_BLOCKED)).toEqual([]);
  });

  it('TOOL_LOOP_GUARD_BUDGET_MS sets the time budget when no option does', async () => {
    vi.stubEnv('TOOL_LOOP_GUARD_BUDGET_MS', '1');
    try {
      let now = 0;
      const s = await setup({ clock: () => (now += 5) });
      const { execute } = await loopingRun(s, 'run-time', 6);
      const [first] = eventsOf(await s.spans(), sc.EVENT_TOOL_LOOP_BLOCKED);
      expect(first.event.attributes?.[sc.ATTR_TOOL_LOOP_BUDGET]).toBe(sc.BUDGET_TIME);
      expect(execute).toHaveBeenCalledTimes(3);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('the evidence span of a critical', () => {
  it('is one run_guardrail span per critical, a child of the blocked call, linked to every member call', async () => {
    const s = await setup({});
    await loopingRun(s, 'run-evidence', 8);
    const spans = await s.spans();
    const evidence = spans.filter((span) => span.name === 'run_guardrail tool-loop-guard');
    const blocked = eventsOf(spans, sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(blocked).toHaveLength(2);
    expect(evidence).toHaveLength(2);
    const tools = spans.filter((span) => span.name === 'execute_tool read');
    const [first] = evidence;
    expect(first.kind).toBe(SpanKind.INTERNAL);
    expect(first.parentSpanContext?.spanId).toBe(blocked[0].span.spanContext().spanId);
    expect(first.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: blocked[0].event.attributes?.[sc.ATTR_TOOL_LOOP_MESSAGE],
    });
    // Every call of the loop before the blocked one (its parent), in call order.
    const callOrder = (span: ReadableSpan) => Number(String(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID]).slice(5));
    const members = tools.filter((t) => callOrder(t) < 6).sort((a, b) => callOrder(a) - callOrder(b));
    expect(first.links.map((l) => l.context.spanId)).toEqual(members.map((t) => t.spanContext().spanId));
    expect(first.links.every((l) => l.context.traceId === first.spanContext().traceId)).toBe(true);
    expect(first.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'run_guardrail',
      [sc.ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME]: 'tool-loop-guard',
      [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_TYPE]: 'input',
      [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_SUBTYPE]: 'tool_call',
      [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_ID]: 'call-6',
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'deny',
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'block',
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-evidence',
      [sc.ATTR_TOOL_LOOP_WASTED_TOKENS]: 6_000,
    });
    // The second block links the first one too: a blocked call is a member of the loop.
    expect(evidence[1].links).toHaveLength(7);
    expect(evidence[1].links.at(-1)?.context.spanId).toBe(blocked[0].span.spanContext().spanId);
    // Not a tool call to anyone reading the GenAI conventions: the tool is its parent's.
    expect(evidence.every((span) => span.attributes[sc.ATTR_GEN_AI_TOOL_NAME] === undefined)).toBe(true);
    // Our processor left its own span alone: no loop event, no verdict, no run of its own.
    expect(
      evidence.every((span) => span.events.length === 0 && span.attributes[sc.ATTR_TOOL_LOOP_VERDICT] === undefined),
    ).toBe(true);
    expect(s.processor.getStats().liveRuns).toBe(0);
  });

  it('uses the global tracer provider once one is registered, and makes none without a provider', async () => {
    const none = await setup({ evidenceProvider: 'none' });
    await loopingRun(none, 'run-no-tracer', 7);
    const withoutTracer = await none.spans();
    expect(eventsOf(withoutTracer, sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    expect(withoutTracer.filter((span) => span.name.startsWith('run_guardrail'))).toEqual([]);

    const global = await setup({ evidenceProvider: 'none' });
    trace.setGlobalTracerProvider(global.provider);
    await loopingRun(global, 'run-global', 7);
    const evidence = (await global.spans()).filter((span) => span.name.startsWith('run_guardrail'));
    expect(evidence).toHaveLength(1);
    expect(evidence[0].links).toHaveLength(6);
  });

  it('links every member of a loop across changing arguments (an unavailable tool retried with new queries)', async () => {
    const s = await setup({ config: { tools: { loopDetection: { enabled: true, unknownToolThreshold: 4 } } } });
    const execute = vi.fn(() => {
      throw new Error('Unknown tool: web_search');
    });
    await traceRun(s.tracer, { runId: 'run-unknown-tool', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 5; i += 1)
        await traceToolCall(
          s.tracer,
          { name: 'web_search', args: { query: `weather, attempt ${i}` }, callId: `call-${i}` },
          execute,
        ).catch(() => undefined);
    });
    const spans = await s.spans();
    const [evidence, ...more] = spans.filter((span) => span.name === 'run_guardrail tool-loop-guard');
    expect(more).toEqual([]);
    expect(evidence.attributes[sc.ATTR_TOOL_LOOP_DETECTOR]).toBe('unknown_tool_repeat');
    expect(evidence.attributes[sc.ATTR_GEN_AI_GUARDRAIL_TARGET_ID]).toBe('call-4');
    const members = spans
      .filter(
        (span) => span.name === 'execute_tool web_search' && span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] !== 'call-4',
      )
      .sort((a, b) =>
        String(a.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID]).localeCompare(
          String(b.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID]),
        ),
      );
    expect(members).toHaveLength(4);
    expect(evidence.links.map((l) => l.context.spanId)).toEqual(members.map((t) => t.spanContext().spanId));
  });

  it('a post-compaction abort gets one too: target output, action abort, linked to the repeated calls', async () => {
    const s = await setup({});
    const execute = vi.fn(() => R('same'));
    const outcome = await traceRun(s.tracer, { runId: 'run-compaction' }, async () => {
      for (let i = 0; i < 5; i += 1) {
        if (i === 2) markCompactionRetry(s.tracer);
        await traceToolCall(s.tracer, { name: 'read', args: { path: '/a' }, callId: `call-${i}` }, execute);
      }
    }).then(
      () => 'completed',
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(CompactionLoopPersistedError);
    const spans = await s.spans();
    const [aborted, ...moreAborts] = eventsOf(spans, sc.EVENT_TOOL_LOOP_ABORTED);
    expect(moreAborts).toEqual([]);
    const [evidence, ...more] = spans.filter((span) => span.name === 'run_guardrail tool-loop-guard');
    expect(more).toEqual([]);
    expect(evidence.parentSpanContext?.spanId).toBe(aborted.span.spanContext().spanId);
    expect(evidence.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: aborted.event.attributes?.[sc.ATTR_TOOL_LOOP_MESSAGE],
    });
    expect(evidence.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_TYPE]: 'output',
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'abort',
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'deny',
      [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_ID]: 'call-4',
      [sc.ATTR_TOOL_LOOP_DETECTOR]: sc.COMPACTION_LOOP_PERSISTED,
      [sc.ATTR_TOOL_LOOP_ACTION]: sc.ACTION_ABORT,
    });
    // Every other call of the repeated read, before and after the compaction, in call order.
    const reads = spans
      .filter((span) => span.name === 'execute_tool read' && span !== aborted.span)
      .sort((a, b) =>
        String(a.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID]).localeCompare(
          String(b.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID]),
        ),
      );
    expect(reads).toHaveLength(4);
    expect(evidence.links.map((l) => l.context.spanId)).toEqual(reads.map((t) => t.spanContext().spanId));
  });

  it('evidenceSpans: false turns it off', async () => {
    const s = await setup({ evidenceSpans: false });
    await loopingRun(s, 'run-off', 7);
    expect((await s.spans()).filter((span) => span.name.startsWith('run_guardrail'))).toEqual([]);
  });
});

describe("shadow mode (mode: 'shadow')", () => {
  it('blocks nothing: traceToolCall runs every tool; would_warn / would_block events and metrics', async () => {
    const onLoopEvent = vi.fn();
    const s = await setup({ mode: 'shadow', onLoopEvent });
    const { execute, results } = await loopingRun(s, 'run-shadow', 9);
    expect(execute).toHaveBeenCalledTimes(9);
    expect(results.every((r) => JSON.stringify(r) === JSON.stringify(R('same')))).toBe(true);
    const spans = await s.spans();
    expect(eventsOf(spans, sc.EVENT_TOOL_LOOP_BLOCKED)).toEqual([]);
    expect(eventsOf(spans, sc.EVENT_TOOL_LOOP_WARNING)).toEqual([]);
    const wouldBlock = eventsOf(spans, sc.EVENT_TOOL_LOOP_WOULD_BLOCK);
    expect(wouldBlock.map((e) => e.event.attributes?.[sc.ATTR_TOOL_LOOP_COUNT])).toEqual([6, 7, 8]);
    expect(wouldBlock[0].event.attributes?.[sc.ATTR_TOOL_LOOP_ACTION]).toBe(sc.ACTION_WOULD_BLOCK);
    const wouldWarn = eventsOf(spans, sc.EVENT_TOOL_LOOP_WOULD_WARN);
    expect(wouldWarn).toHaveLength(1);
    expect(wouldWarn[0].event.attributes?.[sc.ATTR_TOOL_LOOP_SYSTEM_NOTE]).toBeUndefined();
    expect(spans.every((span) => span.attributes[sc.ATTR_TOOL_LOOP_VERDICT] === undefined)).toBe(true);
    expect(onLoopEvent).not.toHaveBeenCalled();
    // The evidence span says the call was allowed.
    const evidence = spans.filter((span) => span.name.startsWith('run_guardrail'));
    expect(evidence).toHaveLength(3);
    expect(evidence[0].attributes[sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]).toBe('allow');
    expect(evidence[0].status.code).toBe(SpanStatusCode.UNSET);
    const actions = (await points(s.reader, sc.METRIC_TOOL_LOOP_EVENTS)).map(
      (p) => `${String(p.attributes[sc.ATTR_TOOL_LOOP_ACTION])}=${p.value}`,
    );
    expect(actions.sort()).toEqual(['would_block=3', 'would_warn=1']);
  });

  it('TOOL_LOOP_GUARD_MODE=shadow sets it; an unknown mode enforces, with a diag warning naming the key', async () => {
    vi.stubEnv('TOOL_LOOP_GUARD_MODE', 'shadow');
    try {
      const s = await setup({});
      const { execute } = await loopingRun(s, 'run-env-shadow', 8);
      expect(execute).toHaveBeenCalledTimes(8);
      vi.stubEnv('TOOL_LOOP_GUARD_MODE', 'shadw');
      const log = recordDiag();
      const t = await setup({});
      expect(log.matching('TOOL_LOOP_GUARD_MODE')).toHaveLength(1);
      expect((await loopingRun(t, 'run-env-typo', 8)).execute).toHaveBeenCalledTimes(6);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('recovery tracking', () => {
  it('counts repeated, recovered and run_ended in tool_loop.recovery and in getStats()', async () => {
    const s = await setup({ recoveryWindow: 2 });
    const read = vi.fn(() => R('same'));
    await traceRun(s.tracer, { runId: 'run-recovers', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 5; i += 1) await traceToolCall(s.tracer, { name: 'read', args: { path: '/a' } }, read); // warning on the 4th, repeated by the 5th
      await traceToolCall(s.tracer, { name: 'grep', args: { q: 1 } }, () => R('x'));
      await traceToolCall(s.tracer, { name: 'grep', args: { q: 2 } }, () => R('y')); // no warning since the 4th: nothing open
    });
    await traceRun(s.tracer, { runId: 'run-ends' }, async () => {
      for (let i = 0; i < 4; i += 1) await traceToolCall(s.tracer, { name: 'read', args: { path: '/b' } }, read); // warned, then the run ends
    });
    await traceRun(s.tracer, { runId: 'run-escapes' }, async () => {
      for (let i = 0; i < 4; i += 1) await traceToolCall(s.tracer, { name: 'read', args: { path: '/c' } }, read);
      await traceToolCall(s.tracer, { name: 'grep', args: { q: 3 } }, () => R('z'));
      await traceToolCall(s.tracer, { name: 'grep', args: { q: 4 } }, () => R('w'));
    });
    expect(s.processor.getStats().recovery).toEqual({ recovered: 1, repeated: 1, runEnded: 1 });
    const outcomes = (await points(s.reader, sc.METRIC_TOOL_LOOP_RECOVERY)).map((p) => ({
      outcome: p.attributes[sc.ATTR_TOOL_LOOP_RECOVERY_OUTCOME],
      action: p.attributes[sc.ATTR_TOOL_LOOP_ACTION],
      detector: p.attributes[sc.ATTR_TOOL_LOOP_DETECTOR],
      value: p.value,
    }));
    expect(outcomes.sort((a, b) => String(a.outcome).localeCompare(String(b.outcome)))).toEqual([
      { outcome: 'recovered', action: 'warn', detector: 'generic_repeat', value: 1 },
      { outcome: 'repeated', action: 'warn', detector: 'generic_repeat', value: 1 },
      { outcome: 'run_ended', action: 'warn', detector: 'generic_repeat', value: 1 },
    ]);
  });

  it('recoveryWindow: 0 turns it off', async () => {
    const s = await setup({ recoveryWindow: 0 });
    await loopingRun(s, 'run-untracked', 8);
    expect(s.processor.getStats().recovery).toEqual({ recovered: 0, repeated: 0, runEnded: 0 });
    expect(await points(s.reader, sc.METRIC_TOOL_LOOP_RECOVERY)).toEqual([]);
  });
});
