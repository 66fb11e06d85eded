import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { enableTelemetry, flushTracing } from 'genkit/tracing';
import { DEFAULT_ADAPTERS, traceRun, type LoopAbortEvent, type LoopEvent, type ToolSpanAdapter } from 'tool-loop-guard';
import { beforeAll, describe, expect, it } from 'vitest';
import { asGenkitProcessors, genkitAgent, genkitTool } from '../harness/genkit-agent.js';
import { createGuard } from '../harness/guard.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { byStart, ToolBody } from '../harness/scenario.js';

/** What a Genkit tool span carries by its end, read through the public custom-adapter API. */
const genkitToolSpans: ToolSpanAdapter = {
  name: 'genkit-probe',
  triggers: { attributes: ['genkit:metadata:subtype'] },
  matchStart: () => undefined,
  matchEnd: (span) => (span.attributes['genkit:metadata:subtype'] === 'tool' ? { toolName: String(span.attributes['genkit:name']) } : undefined),
  readEnd: (span) => ({
    arguments: span.attributes['genkit:input'],
    result: span.attributes['genkit:output'],
    hasResult: 'genkit:output' in span.attributes,
    isError: span.attributes['genkit:state'] === 'error',
  }),
};

const events: LoopEvent[] = [];
const aborts: LoopAbortEvent[] = [];
const exporter = new InMemorySpanExporter();
const recorder = new SpanRecorder();
beforeAll(async () => {
  const guard = await createGuard(events, aborts, { adapters: [genkitToolSpans, ...DEFAULT_ADAPTERS] });
  await enableTelemetry({ spanProcessors: asGenkitProcessors([guard, recorder, new SimpleSpanProcessor(exporter)]) });
});

const body = new ToolBody('loop');
let generateTraceId: string | undefined;
beforeAll(async () => {
  const { ai, options } = genkitAgent(body);
  await traceRun(trace.getTracer('agent'), { runId: 'outer' }, ({ signal }) => ai.generate({ ...options, abortSignal: signal })).catch(() => undefined);
  await flushTracing();
  generateTraceId = recorder.spans.find((span) => span.name === 'generate')?.traceId;
});

const genkitToolCalls = () => byStart(exporter.getFinishedSpans().filter(genkitTool));
const callLevels = (): string[] => {
  const tools = genkitToolCalls();
  return events.map((event) => `${event.level}@${tools.findIndex((span) => span.spanContext().spanId === event.spanId) + 1}`);
};

describe("Genkit's own telemetry pipeline (enableTelemetry, NodeSDK 0.52 / sdk-trace-base 1.25)", () => {
  it('calls a 2.x processor (never onEnding); its generate trace ignores the active traceRun span', () => {
    expect(recorder.spans.length).toBeGreaterThan(30);
    expect(recorder.spans.every((span) => span.atEnding === undefined)).toBe(true);
    const [runRoot] = recorder.spans;
    const generate = recorder.spans.find((span) => span.name === 'generate');
    expect(generate?.parentSpanId).toBeUndefined();
    expect(generate?.traceId).not.toBe(runRoot.traceId);
    expect(genkitToolCalls().length).toBe(30);
    expect(body.executions).toBe(30);
  });

  it('a matchEnd adapter for Genkit tool spans sees the loop, judged in onEnd and scoped by that trace (SDK 1.x spans carry parentSpanId, not parentSpanContext: the processor reads both to tell a trace root)', () => {
    expect(callLevels().slice(0, 2)).toEqual(['warning@11', 'critical@21']);
    expect(events[0].runId).toBe(generateTraceId);
  });
});
