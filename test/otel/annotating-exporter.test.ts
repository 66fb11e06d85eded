import { diag, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { traceRun, ToolLoopSpanProcessor, wrapExporter, type ToolLoopSpanProcessorOptions } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { installContextManager, LOW_THRESHOLDS, recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

// SDKs before 2.3 (the Traceloop SDK's 2.0.1, Genkit's 1.25) never call onEnding: the processor is
// handed here without one, and placed after the exporting processor, as the Traceloop SDK does.
// There the processor gives each span its own end() to run its ending step (test/otel/ending-shim);
// these spans are sealed first, as a span object that cannot take one: what is left is onEnd, on
// a read-only span, and wrapExporter.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);
afterEach(() => {
  diag.disable();
  vi.restoreAllMocks();
});

/** Seals each span as it starts, before the processor sees it. */
const sealing: SpanProcessor = {
  onStart: (span) => void Object.preventExtensions(span),
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/** The processor as an SDK without `onEnding` sees it. */
const withoutOnEnding = (processor: ToolLoopSpanProcessor): SpanProcessor => ({
  onStart: (span, context) => processor.onStart(span, context),
  onEnd: (span) => processor.onEnd(span),
  forceFlush: () => processor.forceFlush(),
  shutdown: () => processor.shutdown(),
});

async function pipeline(wrap: boolean, options: ToolLoopSpanProcessorOptions = {}) {
  const processor = await ToolLoopSpanProcessor.create({ config: LOW_THRESHOLDS, ...options });
  const exporter = new InMemorySpanExporter();
  const exporting = new SimpleSpanProcessor(wrap ? wrapExporter(exporter, processor) : exporter);
  const provider = new BasicTracerProvider({ spanProcessors: [sealing, exporting, withoutOnEnding(processor)] });
  const tracer = provider.getTracer('no-onending');
  await traceRun(tracer, { runId: 'late' }, () => {
    for (let n = 0; n < 5; n += 1) {
      // Traceloop's way: the span starts bare and gets its attributes inside.
      const span = tracer.startSpan('lookup.tool');
      span.setAttributes({
        [sc.ATTR_TRACELOOP_SPAN_KIND]: 'tool',
        [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'lookup',
        [sc.ATTR_TRACELOOP_ENTITY_INPUT]: JSON.stringify({ args: [], kwargs: { id: 42 } }),
        [sc.ATTR_TRACELOOP_ENTITY_OUTPUT]: '"pending"',
        [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'pending',
      });
      span.end();
    }
  }).catch(() => undefined);
  await provider.forceFlush();
  const tools = exporter.getFinishedSpans().filter((span) => span.name === 'lookup.tool');
  return { tools, provider };
}

describe('wrapExporter', () => {
  it('adds the loop events and verdict the processor could not write, after it judged the span', async () => {
    const { tools, provider } = await pipeline(true);
    expect(tools.map((span) => span.attributes[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual([
      undefined,
      undefined,
      'warning',
      'warning',
      'critical',
    ]);
    expect(tools[2].events.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
    expect(tools[4].events[0].attributes?.[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe('late');
    // Every other field is the span's own.
    expect(tools[4].spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(tools[4].attributes[sc.ATTR_TRACELOOP_ENTITY_NAME]).toBe('lookup');
    await provider.shutdown();
  });

  it('applies redactContent to the exported spans', async () => {
    const { tools, provider } = await pipeline(true, { redactContent: true });
    for (const span of tools) {
      expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_INPUT]).toBeUndefined();
      expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_OUTPUT]).toBeUndefined();
      expect(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT]).toBeUndefined();
    }
    expect(tools[4].attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    await provider.shutdown();
  });

  it('without it, removes content from the ended spans and says once, also without diag, what cannot reach the export', async () => {
    const logger = recordDiag();
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { tools, provider } = await pipeline(false, { redactContent: true });
    expect(tools[4].events).toEqual([]);
    for (const span of tools) expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_INPUT]).toBeUndefined();
    const said = logger.matching('without the onEnding step');
    expect(said).toHaveLength(1);
    expect(said[0].level).toBe('warn');
    expect(said[0].text).toContain('redactContent');
    expect(said[0].text).toContain('wrapExporter');
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(warnings.mock.calls[0][0]).toBe(said[0].text.slice(said[0].text.indexOf('a span ended')));
    expect(warnings.mock.calls[0][1]).toMatchObject({ code: 'TOOL_LOOP_GUARD_NO_ON_ENDING' });
    await provider.shutdown();
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
