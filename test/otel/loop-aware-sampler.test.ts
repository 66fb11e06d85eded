/**
 * `ToolLoopSampler` keeps loop detection working when the delegate sampler drops a trace: the
 * run's tool and agent spans are recorded (the processor sees them and blocks) but not exported,
 * and once a loop is found the run's later spans are sampled in. Real provider, real samplers,
 * our real processor, real exporting processors and the real helpers.
 */
import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  BasicTracerProvider as BasicTracerProvider20,
  ParentBasedSampler as ParentBasedSampler20,
  TraceIdRatioBasedSampler as TraceIdRatioBasedSampler20,
} from 'sdk-trace-base-2-0';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { traceRun } from '../../src/instrument/trace-run.js';
import { traceToolCall } from '../../src/instrument/trace-tool-call.js';
import { ToolLoopSampler } from '../../src/otel/loop-aware-sampler.js';
import type { LoopEvent } from '../../src/otel/loop-event.js';
import { ToolLoopSpanProcessor } from '../../src/otel/processor.js';
import type { ToolLoopSamplerOptions } from '../../src/otel/sampler-options.js';
import { installContextManager, LOW_THRESHOLDS, recordDiag, resetOtelGlobals, sc } from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
  vi.unstubAllEnvs();
});

interface Pipeline {
  readonly sampler: ToolLoopSampler;
  readonly processor: ToolLoopSpanProcessor;
  readonly tracer: ReturnType<BasicTracerProvider['getTracer']>;
  readonly loopEvents: LoopEvent[];
  /** Flushes the exporting processor and returns every span exported so far. */
  exported(): Promise<ReadableSpan[]>;
}

/** A provider with the sampler around `delegate`, our processor first and an exporting processor behind it. */
async function pipeline(
  delegate: Sampler,
  exporting: 'batch' | 'simple',
  samplerOptions?: ToolLoopSamplerOptions,
): Promise<Pipeline> {
  installContextManager();
  const sampler = new ToolLoopSampler(delegate, samplerOptions);
  const loopEvents: LoopEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    config: LOW_THRESHOLDS,
    ...sampler.callbacks({ onLoopEvent: (event) => loopEvents.push(event) }),
  });
  const exporter = new InMemorySpanExporter();
  const exportingProcessor: SpanProcessor =
    exporting === 'batch' ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ sampler, spanProcessors: [processor, exportingProcessor] });
  return {
    sampler,
    processor,
    tracer: provider.getTracer('loop-aware-sampler-test'),
    loopEvents,
    exported: async () => {
      await exportingProcessor.forceFlush();
      return exporter.getFinishedSpans();
    },
  };
}

/** What each tool body saw of its own span, and of a plain span it started inside. */
interface BodyView {
  readonly toolRecording: boolean;
  readonly innerRecording: boolean;
}

/**
 * A run of `calls` identical `read` calls (W2 C4: warning on the 3rd, first critical on the 5th),
 * every critical a recovery turn so that all calls are asked for; each body starts a plain span.
 */
async function loopingRun(p: Pipeline, runId: string, calls: number, bodies: BodyView[] = []): Promise<Span> {
  return traceRun(p.tracer, { runId, endOnSecondCritical: false }, async ({ span }) => {
    for (let i = 0; i < calls; i += 1)
      await traceToolCall(p.tracer, { name: 'read', args: { path: '/same.txt' } }, ({ span: toolSpan }) => {
        const inner = p.tracer.startSpan('fs.readFile');
        bodies.push({ toolRecording: toolSpan.isRecording(), innerRecording: inner.isRecording() });
        inner.end();
        return 'same content';
      });
    return span;
  });
}

const toolSpans = (spans: readonly ReadableSpan[]) => spans.filter((span) => span.name === 'execute_tool read');
const hasEvent = (span: ReadableSpan, name: string) => span.events.some((event) => event.name === name);

describe.each([
  ['TraceIdRatioBasedSampler(0)', () => new TraceIdRatioBasedSampler(0), 'batch'],
  [
    'ParentBasedSampler(root: TraceIdRatioBasedSampler(0))',
    () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }),
    'simple',
  ],
] as const)('a looping run whose trace %s drops', (_name, delegate, exporting) => {
  it('is still blocked, exports none of its spans before the loop, and exports the spans after it', async () => {
    const p = await pipeline(delegate(), exporting);
    const bodies: BodyView[] = [];
    const root = await loopingRun(p, 'run-dropped', 7, bodies);

    // Call 3 draws the warning (call 4's repeat of it is suppressed); calls 5, 6 and 7 are
    // critical: the tool ran for the first four calls only.
    expect(bodies).toHaveLength(4);
    expect(p.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical', 'critical', 'critical']);
    expect(bodies.every((body) => body.toolRecording)).toBe(true);
    // The default `traces` mode records the plain spans inside the run too.
    expect(bodies.every((body) => body.innerRecording)).toBe(true);
    expect(root.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);

    const exported = await p.exported();
    const firstLoop = p.loopEvents[0];
    expect(firstLoop.traceId).toBe(root.spanContext().traceId);
    // The run root and calls 1–3 (the 3rd drew the warning as it started) are not exported.
    expect(exported.map((span) => span.spanContext().spanId)).not.toContain(root.spanContext().spanId);
    expect(exported.map((span) => span.spanContext().spanId)).not.toContain(firstLoop.spanId);
    const tools = toolSpans(exported);
    // Calls 4–7 started after the warning: each is exported, sampled in.
    expect(tools).toHaveLength(4);
    for (const span of tools) {
      expect(span.spanContext().traceId).toBe(firstLoop.traceId);
      expect(span.attributes[sc.ATTR_TOOL_LOOP_SAMPLED_IN]).toBe(true);
    }
    expect(tools.filter((span) => hasEvent(span, sc.EVENT_TOOL_LOOP_BLOCKED))).toHaveLength(3);
    // The warning is on call 3's span, which started before the loop was found.
    expect(tools.filter((span) => hasEvent(span, sc.EVENT_TOOL_LOOP_WARNING))).toHaveLength(0);
    // The plain spans of calls 3 and 4 started after the warning: both are exported, and call
    // 3's has a parent (the warned call's span) that is not.
    const inner = exported.filter((span) => span.name === 'fs.readFile');
    expect(inner).toHaveLength(2);
    expect(inner[0].parentSpanContext?.spanId).toBe(firstLoop.spanId);
  });
});

describe('a looping run under a remote parent that was not sampled', () => {
  it('is blocked, and its calls after the loop are exported', async () => {
    const p = await pipeline(new ParentBasedSampler({ root: new AlwaysOnSampler() }), 'simple');
    const incoming = trace.setSpanContext(ROOT_CONTEXT, { ...PARENT, isRemote: true });
    const bodies: BodyView[] = [];
    await context.with(incoming, () => loopingRun(p, 'run-remote', 6, bodies));
    expect(bodies).toHaveLength(4);
    const tools = toolSpans(await p.exported());
    expect(tools).toHaveLength(3);
    expect(tools.every((span) => span.spanContext().traceId === PARENT.traceId)).toBe(true);
    expect(tools.filter((span) => hasEvent(span, sc.EVENT_TOOL_LOOP_BLOCKED))).toHaveLength(2);
  });
});

describe('a run the delegate drops that does not loop', () => {
  it('is seen by the processor and exports nothing', async () => {
    const p = await pipeline(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }), 'batch');
    const seen: boolean[] = [];
    let liveRuns = 0;
    await traceRun(p.tracer, { runId: 'run-quiet' }, async () => {
      for (let i = 0; i < 6; i += 1)
        await traceToolCall(p.tracer, { name: 'read', args: { path: `/file-${i}.txt` } }, ({ span }) => {
          liveRuns = p.processor.getStats().liveRuns;
          seen.push(span.isRecording());
          return `content ${i}`;
        });
    });
    expect(liveRuns).toBe(1);
    expect(seen).toEqual([true, true, true, true, true, true]);
    expect(p.loopEvents).toEqual([]);
    expect(await p.exported()).toEqual([]);
  });

  it('leaves spans outside any run to the delegate', async () => {
    const p = await pipeline(new TraceIdRatioBasedSampler(0), 'simple');
    const request = p.tracer.startSpan('GET /health', { kind: SpanKind.SERVER, attributes: { 'http.method': 'GET' } });
    const child = p.tracer.startSpan('db.query', {}, trace.setSpan(ROOT_CONTEXT, request));
    expect(request.isRecording()).toBe(false);
    expect(child.isRecording()).toBe(false);
    child.end();
    request.end();
    expect(await p.exported()).toEqual([]);
  });
});

describe('the delegate’s own decisions', () => {
  it('leaves sampled traces untouched: a looping run exports every span, none marked sampled in', async () => {
    const p = await pipeline(new ParentBasedSampler({ root: new AlwaysOnSampler() }), 'batch');
    const bodies: BodyView[] = [];
    await loopingRun(p, 'run-sampled', 7, bodies);
    expect(bodies).toHaveLength(4);
    const exported = await p.exported();
    // The root, seven tool spans and four plain spans.
    expect(exported).toHaveLength(12);
    expect(exported.some((span) => span.attributes[sc.ATTR_TOOL_LOOP_SAMPLED_IN] !== undefined)).toBe(false);
  });

  it('returns a sampled result as the delegate returned it, and keeps a RECORD decision', () => {
    const sampled = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED, attributes: { 'x.y': 1 } });
    const recorded = Object.freeze({ decision: SamplingDecision.RECORD });
    let answer: typeof sampled | typeof recorded = sampled;
    const sampler = new ToolLoopSampler({ shouldSample: () => answer, toString: () => 'Fixed' });
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'plain', SpanKind.INTERNAL, {}, [])).toBe(sampled);
    answer = recorded;
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'plain', SpanKind.INTERNAL, {}, [])).toBe(recorded);
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'execute_tool read', SpanKind.INTERNAL, TOOL, [])).toBe(
      recorded,
    );
  });

  it('keeps the delegate’s attributes and trace state on a recorded span', () => {
    const traceState = createTraceState('vendor=kept');
    const sampler = new ToolLoopSampler({
      shouldSample: () => ({ decision: SamplingDecision.NOT_RECORD, attributes: { 'x.y': 1 }, traceState }),
    });
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'execute_tool read', SpanKind.INTERNAL, TOOL, [])).toEqual({
      decision: SamplingDecision.RECORD,
      attributes: { 'x.y': 1 },
      traceState,
    });
  });
});

const TRACE_A = '0af7651916cd43dd8448eb211c80319c';
const TRACE_B = '1bf7651916cd43dd8448eb211c80319c';
const TRACE_C = '2cf7651916cd43dd8448eb211c80319c';
const TOOL = { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool' };
const PARENT = { traceId: TRACE_A, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE };

/** The decision for a plain span of trace `traceId` under the ratio-0 delegate. */
const plainDecision = (sampler: Sampler, traceId: string) =>
  sampler.shouldSample(ROOT_CONTEXT, traceId, 'plain', SpanKind.INTERNAL, {}, []).decision;

describe('what is recorded, by the record mode', () => {
  const decision = (sampler: Sampler, context: Context, name: string, attributes = {}) =>
    sampler.shouldSample(context, TRACE_A, name, SpanKind.INTERNAL, attributes, []).decision;

  it('records spans marked as tool, run or agent spans at creation in every mode', () => {
    for (const record of ['marked', 'traces', 'all'] as const) {
      const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { record });
      expect(decision(sampler, ROOT_CONTEXT, 'execute_tool read', TOOL)).toBe(SamplingDecision.RECORD);
      expect(decision(sampler, ROOT_CONTEXT, 'ai.toolCall')).toBe(SamplingDecision.RECORD);
      expect(decision(sampler, ROOT_CONTEXT, 'agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'r' })).toBe(
        SamplingDecision.RECORD,
      );
      expect(decision(sampler, ROOT_CONTEXT, 'chain', { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'AGENT' })).toBe(
        SamplingDecision.RECORD,
      );
    }
  });

  it('records an unmarked span under a recording, unsampled parent only in traces and all', async () => {
    installContextManager();
    const outcomes: Record<string, [boolean, boolean]> = {};
    for (const record of ['marked', 'traces', 'all'] as const) {
      const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { record });
      const tracer = new BasicTracerProvider({ sampler }).getTracer('modes');
      const agent = tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'r' } });
      const step = tracer.startSpan('step', {}, trace.setSpan(ROOT_CONTEXT, agent));
      const outside = tracer.startSpan('GET /health');
      outcomes[record] = [step.isRecording(), outside.isRecording()];
      expect(agent.isRecording()).toBe(true);
    }
    expect(outcomes).toEqual({ marked: [false, false], traces: [true, false], all: [true, true] });
  });

  it('records a span whose parent context holds only a span context once its trace recorded a marked span', () => {
    const byContext = trace.setSpanContext(ROOT_CONTEXT, PARENT);
    const traces = new ToolLoopSampler(new TraceIdRatioBasedSampler(0));
    const marked = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { record: 'marked' });
    for (const sampler of [traces, marked]) {
      expect(decision(sampler, byContext, 'step')).toBe(SamplingDecision.NOT_RECORD);
      expect(decision(sampler, ROOT_CONTEXT, 'invoke_agent', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'r' })).toBe(
        SamplingDecision.RECORD,
      );
    }
    expect(decision(traces, byContext, 'step')).toBe(SamplingDecision.RECORD);
    expect(decision(marked, byContext, 'step')).toBe(SamplingDecision.NOT_RECORD);
  });

  it('forgets the least recently active recorded traces past maxRecordedTraces', () => {
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { maxRecordedTraces: 2 });
    const agentIn = (traceId: string) =>
      sampler.shouldSample(ROOT_CONTEXT, traceId, 'invoke_agent', SpanKind.INTERNAL, TOOL, []);
    agentIn(TRACE_A);
    agentIn(TRACE_B);
    // A span of A makes A the most recent, so C's run evicts B.
    expect(plainDecision(sampler, TRACE_A)).toBe(SamplingDecision.RECORD);
    agentIn(TRACE_C);
    expect([TRACE_A, TRACE_B, TRACE_C].map((id) => plainDecision(sampler, id))).toEqual([
      SamplingDecision.RECORD,
      SamplingDecision.NOT_RECORD,
      SamplingDecision.RECORD,
    ]);
  });

  it('keeps a run’s scope across an unmarked span between the run and its calls in traces mode', async () => {
    const runIds: Record<string, string[]> = {};
    for (const record of ['marked', 'traces'] as const) {
      const p = await pipeline(new TraceIdRatioBasedSampler(0), 'simple', { record });
      const root = await traceRun(p.tracer, { runId: 'run-with-steps' }, ({ span }) =>
        p.tracer.startActiveSpan('agent step', async (step) => {
          for (let i = 0; i < 3; i += 1) await traceToolCall(p.tracer, { name: 'read', args: { p: 1 } }, () => 'same');
          step.end();
          return span;
        }),
      );
      runIds[record] = p.loopEvents.map((event) =>
        event.runId === root.spanContext().traceId ? 'trace' : event.runId,
      );
    }
    // Under a dropped step the processor cannot see the run above it: the calls count in their trace's run.
    expect(runIds).toEqual({ marked: ['trace'], traces: ['run-with-steps'] });
  });

  it('catches a span marked only after it starts (Traceloop withTool) in traces mode, not in marked mode', async () => {
    const found: Record<string, string[]> = {};
    for (const record of ['marked', 'traces'] as const) {
      const p = await pipeline(new TraceIdRatioBasedSampler(0), 'simple', { record });
      await traceRun(p.tracer, { runId: `run-traceloop-${record}` }, () => {
        for (let i = 0; i < 5; i += 1) {
          const span = p.tracer.startSpan('lookup.tool');
          span.setAttributes({
            [sc.ATTR_TRACELOOP_SPAN_KIND]: sc.TRACELOOP_SPAN_KIND_TOOL,
            [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'lookup',
            [sc.ATTR_TRACELOOP_ENTITY_INPUT]: JSON.stringify({ args: [], kwargs: { q: 'same' } }),
            [sc.ATTR_TRACELOOP_ENTITY_OUTPUT]: JSON.stringify('same answer'),
          });
          span.end();
        }
      });
      found[record] = p.loopEvents.map((event) => event.level);
    }
    expect(found).toEqual({ marked: [], traces: ['warning', 'critical'] });
  });

  it('catches OpenInference LangChain tool spans, bare at start with parents set by span context, in traces mode', async () => {
    const found: Record<string, string[]> = {};
    for (const record of ['marked', 'traces'] as const) {
      const p = await pipeline(new TraceIdRatioBasedSampler(0), 'simple', { record });
      await traceRun(p.tracer, { runId: `run-openinference-${record}` }, () => {
        const chain = p.tracer.startSpan('tools');
        const byContext = trace.setSpanContext(ROOT_CONTEXT, chain.spanContext());
        for (let i = 0; i < 5; i += 1) {
          const span = p.tracer.startSpan('lookup', {}, byContext);
          span.setAttributes({
            [sc.ATTR_OPENINFERENCE_SPAN_KIND]: sc.OPENINFERENCE_SPAN_KIND_TOOL,
            [sc.ATTR_OPENINFERENCE_TOOL_NAME]: 'lookup',
            [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: 'order-42',
            [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: JSON.stringify({ output: 'shipped' }),
          });
          span.end();
        }
        chain.end();
      });
      found[record] = p.loopEvents.map((event) => event.level);
    }
    expect(found).toEqual({ marked: [], traces: ['warning', 'critical'] });
  });
});

describe('sampling a run in', () => {
  it('samples in a later trace of a looping run by the run id its root carries', async () => {
    const p = await pipeline(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }), 'batch');
    await loopingRun(p, 'run-again', 3);
    expect(p.loopEvents).toHaveLength(1);
    const before = (await p.exported()).length;
    // Another trace of the same run, and a trace of another run.
    const again = await traceRun(p.tracer, { runId: 'run-again' }, async ({ span }) => {
      await traceToolCall(p.tracer, { name: 'list', args: { dir: '/' } }, () => 'a b c');
      return span;
    });
    const other = await traceRun(p.tracer, { runId: 'run-other' }, async ({ span }) => {
      await traceToolCall(p.tracer, { name: 'list', args: { dir: '/' } }, () => 'a b c');
      return span;
    });
    const exported = (await p.exported()).slice(before);
    expect(exported.map((span) => [span.name, span.spanContext().traceId])).toEqual([
      ['execute_tool list', again.spanContext().traceId],
      ['invoke_agent', again.spanContext().traceId],
    ]);
    expect(exported.some((span) => span.spanContext().traceId === other.spanContext().traceId)).toBe(false);
  });

  it('samples in the trace of an onAbort event and ignores events without a valid trace id', () => {
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0));
    sampler.onLoopEvent({ traceId: 'not-a-trace-id' } as LoopEvent);
    sampler.onLoopEvent(null as unknown as LoopEvent);
    sampler.sampleIn({ traceId: '00000000000000000000000000000000' });
    expect(plainDecision(sampler, TRACE_A)).toBe(SamplingDecision.NOT_RECORD);
    sampler.onAbort({ traceId: TRACE_A, runId: TRACE_A } as Parameters<ToolLoopSampler['onAbort']>[0]);
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'plain', SpanKind.INTERNAL, {}, [])).toEqual({
      decision: SamplingDecision.RECORD_AND_SAMPLED,
      attributes: { [sc.ATTR_TOOL_LOOP_SAMPLED_IN]: true },
    });
  });

  it('forgets the least recently looping traces past maxLoopingRuns', () => {
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { maxLoopingRuns: 2 });
    sampler.sampleIn({ traceId: TRACE_A });
    sampler.sampleIn({ traceId: TRACE_B });
    // A repeat makes A the most recent, so C evicts B.
    sampler.sampleIn({ traceId: TRACE_A });
    sampler.sampleIn({ traceId: TRACE_C });
    expect([TRACE_A, TRACE_B, TRACE_C].map((id) => plainDecision(sampler, id))).toEqual([
      SamplingDecision.RECORD_AND_SAMPLED,
      SamplingDecision.NOT_RECORD,
      SamplingDecision.RECORD_AND_SAMPLED,
    ]);
  });

  it('forgets the least recently looping run ids past maxLoopingRuns, whatever their traffic', () => {
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { maxLoopingRuns: 2 });
    for (const runId of ['run-1', 'run-2', 'run-3']) sampler.sampleIn({ traceId: TRACE_A, runId });
    let traces = 0;
    // Each run root starts a trace of its own, so only its run id can sample it in.
    const runRoot = (runId: string) => {
      traces += 1;
      const traceId = traces.toString(16).padStart(32, 'f');
      const attributes = { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId };
      return sampler.shouldSample(ROOT_CONTEXT, traceId, 'invoke_agent', SpanKind.INTERNAL, attributes, []).decision;
    };
    expect(['run-1', 'run-2', 'run-3'].map(runRoot)).toEqual([
      SamplingDecision.RECORD,
      SamplingDecision.RECORD_AND_SAMPLED,
      SamplingDecision.RECORD_AND_SAMPLED,
    ]);
    // Traffic does not keep run-2: the next loop pushes out the oldest one.
    sampler.sampleIn({ traceId: TRACE_B, runId: 'run-4' });
    expect(['run-2', 'run-3', 'run-4'].map(runRoot)).toEqual([
      SamplingDecision.RECORD,
      SamplingDecision.RECORD_AND_SAMPLED,
      SamplingDecision.RECORD_AND_SAMPLED,
    ]);
  });

  it('calls the user’s callback after sampling in, even one that throws', async () => {
    const logger = recordDiag();
    installContextManager();
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0));
    const processor = await ToolLoopSpanProcessor.create({
      config: LOW_THRESHOLDS,
      ...sampler.callbacks({
        onLoopEvent: () => {
          throw new Error('user callback failed');
        },
      }),
    });
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      sampler,
      spanProcessors: [processor, new SimpleSpanProcessor(exporter)],
    }).getTracer('callbacks');
    await traceRun(tracer, { runId: 'run-throwing-callback' }, async () => {
      for (let i = 0; i < 4; i += 1) await traceToolCall(tracer, { name: 'read', args: { p: 1 } }, () => 'same');
    });
    expect(logger.matching('user callback failed').length).toBeGreaterThan(0);
    expect(toolSpans(exporter.getFinishedSpans())).toHaveLength(1);
  });

  it('ignores a callback that is not a function, with a warning naming it', () => {
    const logger = recordDiag();
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0));
    const callbacks = sampler.callbacks({ onAbort: 'alert' as unknown as () => void });
    expect(callbacks.onAbort).toBe(sampler.onAbort);
    expect(logger.at('warn').join('\n')).toContain('onAbort must be a function');
  });
});

describe('toString', () => {
  it('names the sampler, its delegate and its settings, as OpenTelemetry samplers do', () => {
    expect(new ToolLoopSampler(new TraceIdRatioBasedSampler(0)).toString()).toBe(
      'ToolLoopSampler{delegate=TraceIdRatioBased{0}, record=traces, maxLoopingRuns=10000, maxRecordedTraces=10000}',
    );
    const parentBased = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.25) });
    expect(
      new ToolLoopSampler(parentBased, { record: 'marked', maxLoopingRuns: 5, maxRecordedTraces: 6 }).toString(),
    ).toBe(`ToolLoopSampler{delegate=${parentBased.toString()}, record=marked, maxLoopingRuns=5, maxRecordedTraces=6}`);
  });

  it('survives a delegate whose toString throws', () => {
    const delegate = {
      shouldSample: () => ({ decision: SamplingDecision.NOT_RECORD }),
      toString: () => {
        throw new Error('no name');
      },
    };
    expect(new ToolLoopSampler(delegate).toString()).toContain('delegate=unprintable sampler');
  });
});

describe('a failing delegate', () => {
  it('falls back to the parent’s sampled flag with one warning, and still records tool spans', () => {
    const logger = recordDiag();
    const sampler = new ToolLoopSampler({
      shouldSample: () => {
        throw new Error('delegate broke');
      },
    });
    const sampledParent = trace.setSpanContext(ROOT_CONTEXT, { ...PARENT, traceFlags: TraceFlags.SAMPLED });
    expect(sampler.shouldSample(sampledParent, TRACE_A, 'plain', SpanKind.INTERNAL, {}, []).decision).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(plainDecision(sampler, TRACE_A)).toBe(SamplingDecision.NOT_RECORD);
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_A, 'execute_tool read', SpanKind.INTERNAL, TOOL, []).decision).toBe(
      SamplingDecision.RECORD,
    );
    const warnings = logger.matching('delegate sampler threw');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].text).toContain('delegate broke');
  });

  it('treats a result without a decision as a failure', () => {
    const logger = recordDiag();
    const sampler = new ToolLoopSampler({ shouldSample: () => ({}) as never });
    expect(plainDecision(sampler, TRACE_A)).toBe(SamplingDecision.NOT_RECORD);
    expect(logger.matching('delegate sampler returned an object')).toHaveLength(1);
  });

  it('rejects a delegate that is not a sampler', () => {
    expect(() => new ToolLoopSampler(undefined as unknown as Sampler)).toThrow(TypeError);
    expect(() => new ToolLoopSampler({} as Sampler)).toThrow(/delegate must be a Sampler/);
  });
});

describe('options', () => {
  it('reads every option but adapters from the environment', () => {
    vi.stubEnv('TOOL_LOOP_GUARD_SAMPLER_RECORD', 'all');
    vi.stubEnv('TOOL_LOOP_GUARD_SAMPLER_MAX_LOOPING_RUNS', '7');
    vi.stubEnv('TOOL_LOOP_GUARD_SAMPLER_MAX_RECORDED_TRACES', ' 8 ');
    expect(new ToolLoopSampler(new AlwaysOnSampler()).toString()).toBe(
      'ToolLoopSampler{delegate=AlwaysOnSampler, record=all, maxLoopingRuns=7, maxRecordedTraces=8}',
    );
    // An explicit option wins over the environment.
    expect(new ToolLoopSampler(new AlwaysOnSampler(), { record: 'marked' }).toString()).toContain('record=marked');
  });

  it('falls back to the defaults with a warning naming the key', () => {
    const logger = recordDiag();
    vi.stubEnv('TOOL_LOOP_GUARD_SAMPLER_MAX_LOOPING_RUNS', 'lots');
    const sampler = new ToolLoopSampler(new AlwaysOnSampler(), { record: 'everything' as 'all', maxRecordedTraces: 0 });
    expect(sampler.toString()).toBe(
      'ToolLoopSampler{delegate=AlwaysOnSampler, record=traces, maxLoopingRuns=10000, maxRecordedTraces=10000}',
    );
    const warnings = logger.at('warn').join('\n');
    expect(warnings).toContain(`option record must be 'marked', 'traces' or 'all', got "everything"`);
    expect(warnings).toContain('TOOL_LOOP_GUARD_SAMPLER_MAX_LOOPING_RUNS must be a positive integer, got "lots"');
    expect(warnings).toContain('option maxRecordedTraces must be a positive integer, got 0');
  });

  it('takes the processor’s adapters: a span only a custom adapter marks is recorded', () => {
    const custom = {
      name: 'custom',
      triggers: { attributes: ['my.tool'] },
      matchStart: () => undefined,
      readEnd: () => ({ hasResult: false, isError: false }),
    };
    const sampler = new ToolLoopSampler(new TraceIdRatioBasedSampler(0), { adapters: [custom] });
    const decide = (traceId: string, attributes: Record<string, string>) =>
      sampler.shouldSample(ROOT_CONTEXT, traceId, 'x', SpanKind.INTERNAL, attributes, []).decision;
    expect(decide(TRACE_A, { 'my.tool': 'read' })).toBe(SamplingDecision.RECORD);
    expect(decide(TRACE_B, TOOL)).toBe(SamplingDecision.NOT_RECORD);
  });
});

describe('spans sampled in after a loop', () => {
  it('keep the trace’s status and events as the processor wrote them', async () => {
    const p = await pipeline(new TraceIdRatioBasedSampler(0), 'simple');
    await traceRun(p.tracer, { runId: 'run-error' }, async () => {
      for (let i = 0; i < 3; i += 1) await traceToolCall(p.tracer, { name: 'read', args: { p: 1 } }, () => 'same');
      await traceToolCall(p.tracer, { name: 'write', args: { p: 1 } }, () => {
        throw new Error('disk full');
      }).catch(() => undefined);
    });
    const write = (await p.exported()).find((span) => span.name === 'execute_tool write');
    expect(write?.status.code).toBe(SpanStatusCode.ERROR);
    expect(write?.attributes[sc.ATTR_TOOL_LOOP_SAMPLED_IN]).toBe(true);
  });
});

describe('the Vercel AI SDK under a ratio-0 parent-based sampler', () => {
  /** A model that asks for the same tool call at every step. */
  const loopingModel = () => {
    let step = 0;
    return new MockLanguageModelV3({
      doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
        step += 1;
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'check', input: '{"job":"42"}' }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 5, text: 5, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
  };

  /** Runs the looping agent (W2 C4, abortOnCritical) with or without the sampler around the delegate. */
  async function agent(wrapped: boolean) {
    installContextManager();
    const delegate = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) });
    const sampler = wrapped ? new ToolLoopSampler(delegate) : delegate;
    const loopEvents: LoopEvent[] = [];
    const processor = await ToolLoopSpanProcessor.create({
      config: LOW_THRESHOLDS,
      abortOnCritical: true,
      ...(sampler instanceof ToolLoopSampler
        ? sampler.callbacks({ onLoopEvent: (event) => loopEvents.push(event) })
        : { onLoopEvent: (event: LoopEvent) => loopEvents.push(event) }),
    });
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      sampler,
      spanProcessors: [processor, new SimpleSpanProcessor(exporter)],
    }).getTracer('ai-sdk');
    let executions = 0;
    const outcome = await generateText({
      model: loopingModel(),
      tools: {
        check: tool({ inputSchema: z.object({ job: z.string() }), execute: async () => (executions++, 'running') }),
      },
      prompt: 'wait for job 42',
      stopWhen: stepCountIs(12),
      experimental_telemetry: { isEnabled: true, tracer, metadata: { runId: 'ai-run' } },
      abortSignal: processor.runSignal('ai-run'),
    }).then(
      () => 'finished',
      (error: unknown) => (error instanceof Error ? error.name : 'rejected'),
    );
    return { outcome, executions, loopEvents, exported: exporter.getFinishedSpans() };
  }

  it('without the wrapper the loop runs to the step limit unseen; with it the run is stopped and the loop exported', async () => {
    const plain = await agent(false);
    expect(plain).toMatchObject({ outcome: 'finished', executions: 12, loopEvents: [], exported: [] });

    const guarded = await agent(true);
    // Critical at the 5th call's start; the SDK runs that call, then stops on the aborted signal.
    expect(guarded.outcome).toBe('ToolLoopBlockedError');
    expect(guarded.executions).toBe(5);
    expect(guarded.loopEvents.map((event) => [event.level, event.runId])).toEqual([
      ['warning', 'ai-run'],
      ['critical', 'ai-run'],
    ]);
    const calls = guarded.exported.filter((span) => span.name === 'ai.toolCall');
    expect(calls).toHaveLength(2);
    expect(calls.every((span) => span.attributes[sc.ATTR_TOOL_LOOP_SAMPLED_IN] === true)).toBe(true);
    expect(calls[1].events.map((event) => event.name)).toContain(sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(guarded.exported.some((span) => span.name === 'ai.generateText')).toBe(false);
  });
});

describe('on sdk-trace-base 2.0 (no onEnding)', () => {
  it('records the dropped run so the processor still blocks its loop', async () => {
    installContextManager();
    const sampler = new ToolLoopSampler(new ParentBasedSampler20({ root: new TraceIdRatioBasedSampler20(0) }));
    const loopEvents: LoopEvent[] = [];
    const processor = await ToolLoopSpanProcessor.create({
      config: LOW_THRESHOLDS,
      ...sampler.callbacks({ onLoopEvent: (event) => loopEvents.push(event) }),
    });
    const tracer = new BasicTracerProvider20({ sampler, spanProcessors: [processor] }).getTracer('sdk-2.0');
    const p = { sampler, processor, tracer, loopEvents, exported: async () => [] };
    const bodies: BodyView[] = [];
    await loopingRun(p, 'run-sdk-2.0', 6, bodies);
    expect(bodies).toHaveLength(4);
    expect(loopEvents.map((event) => event.level)).toEqual(['warning', 'critical', 'critical']);
  });
});
