import { diag, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider as OldBasicTracerProvider,
  SimpleSpanProcessor as OldSimpleSpanProcessor,
  type ReadableSpan as OldReadableSpan,
  type SpanExporter as OldSpanExporter,
} from 'sdk-trace-base-2-0';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolLoopSpanProcessor, traceRun, type LoopEvent, type ToolLoopSpanProcessorOptions } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { installContextManager, LOW_THRESHOLDS, recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

// An SDK that never calls onEnding (sdk-trace-base 2.0, as the Traceloop SDK brings it): the
// processor runs its ending step from each span's own end(), before any processor's onEnd.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);
afterEach(() => {
  diag.disable();
  vi.restoreAllMocks();
});

/** What an exporter handed a span gets from it at once (as the OTLP exporters serialise it). */
interface Exported {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly events: string[];
  readonly ownEnd: boolean;
}

/** Copies each span as it is handed over, as an exporter that serialises at once sees it. */
class CopyingExporter implements OldSpanExporter {
  readonly spans: Exported[] = [];
  export(spans: OldReadableSpan[], done: (result: { code: number }) => void): void {
    for (const span of spans)
      this.spans.push({
        name: span.name,
        attributes: { ...span.attributes },
        events: span.events.map((event) => event.name),
        ownEnd: Object.prototype.hasOwnProperty.call(span, 'end'),
      });
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The same call every time, the Traceloop SDK's way: set on a started span, then it ends. */
function finishTraceloopCall(span: Span): void {
  span.setAttributes({
    [sc.ATTR_TRACELOOP_SPAN_KIND]: 'tool',
    [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'lookup',
    [sc.ATTR_TRACELOOP_ENTITY_INPUT]: JSON.stringify({ args: [], kwargs: { id: 42 } }),
    [sc.ATTR_TRACELOOP_ENTITY_OUTPUT]: JSON.stringify({ status: 'pending', token: 'the-secret' }),
  });
  span.end();
}

/** One call: the span starts bare and gets its attributes inside. */
function traceloopCall(tracer: Tracer): void {
  finishTraceloopCall(tracer.startSpan('lookup.tool'));
}

async function oldSdkPipeline(options: ToolLoopSpanProcessorOptions = {}) {
  const events: LoopEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    config: LOW_THRESHOLDS,
    onLoopEvent: (event) => events.push(event),
    // Evidence spans on the same provider: they end without a start the guard cares about.
    tracerProvider: () => provider,
    ...options,
  });
  const exporter = new CopyingExporter();
  // The exporting processor first, as the Traceloop SDK's initialize({ processor }) places them.
  const provider = new OldBasicTracerProvider({ spanProcessors: [new OldSimpleSpanProcessor(exporter), processor] });
  return { processor, exporter, events, provider, tracer: provider.getTracer('sdk-2.0') };
}

describe('on sdk-trace-base 2.0 (no onEnding), the processor after the exporting one', () => {
  it('the exported spans carry the loop events and verdicts, as the exporter gets them', async () => {
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const logger = recordDiag();
    const { exporter, events, provider, tracer } = await oldSdkPipeline();
    await traceRun(tracer, { runId: 'old-sdk' }, () => {
      for (let n = 0; n < 5; n += 1) traceloopCall(tracer);
    }).catch(() => undefined);
    await provider.shutdown();
    const tools = exporter.spans.filter((span) => span.name === 'lookup.tool');
    expect(tools.map((span) => span.attributes[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual([
      undefined,
      undefined,
      'warning',
      'warning',
      'critical',
    ]);
    expect(tools[2].events).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
    expect(tools[4].events).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    expect(events.map((event) => event.level)).toEqual(['warning', 'critical']);
    // The span is exported as the SDK made it: its own end() is gone once it ran.
    expect(tools.some((span) => span.ownEnd)).toBe(false);
    expect(logger.at('warn').filter((line) => !/Loop warning|Blocking/.test(line))).toEqual([]);
    expect(warnings).not.toHaveBeenCalled();
  });

  it('redactContent: no raw tool input or output reaches the exporter, and nothing to warn about', async () => {
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { exporter, provider, tracer } = await oldSdkPipeline({ redactContent: true });
    await traceRun(tracer, { runId: 'old-sdk-redact' }, () => {
      for (let n = 0; n < 5; n += 1) traceloopCall(tracer);
    }).catch(() => undefined);
    await provider.shutdown();
    const tools = exporter.spans.filter((span) => span.name === 'lookup.tool');
    expect(tools).toHaveLength(5);
    expect(JSON.stringify(tools)).not.toContain('secret');
    expect(tools[4].attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    expect(exporter.spans.some((span) => span.name.endsWith(sc.GUARDRAIL_COMPONENT_TOOL_LOOP_GUARD))).toBe(true);
    expect(warnings).not.toHaveBeenCalled();
  });

  it('a span ended twice is finished once', async () => {
    recordDiag(); // the SDK reports the second end() through diag
    const { events, provider, tracer } = await oldSdkPipeline();
    await traceRun(tracer, { runId: 'twice' }, () => {
      for (let n = 0; n < 3; n += 1) {
        const span = tracer.startSpan('lookup.tool');
        finishTraceloopCall(span);
        span.end();
      }
    }).catch(() => undefined);
    await provider.shutdown();
    // Counted twice, the second call would already warn.
    expect(events.map((event) => `${event.level}:${event.count}`)).toEqual(['warning:2']);
  });
});

describe('on an SDK that calls onEnding', () => {
  /** The same five calls, all started before any ends (the SDK is seen calling onEnding only then). */
  async function overlapping(order: 'processor-first' | 'processor-last'): Promise<string[]> {
    const events: LoopEvent[] = [];
    const processor = await ToolLoopSpanProcessor.create({
      config: LOW_THRESHOLDS,
      onLoopEvent: (event) => events.push(event),
    });
    const exporting: SpanProcessor = new SimpleSpanProcessor(new InMemorySpanExporter());
    const provider = new BasicTracerProvider({
      spanProcessors: order === 'processor-first' ? [processor, exporting] : [exporting, processor],
    });
    const tracer = provider.getTracer('sdk-2.12');
    await traceRun(tracer, { runId: order }, () => {
      const spans = Array.from({ length: 5 }, () => tracer.startSpan('lookup.tool'));
      for (const span of spans) finishTraceloopCall(span);
    }).catch(() => undefined);
    await provider.shutdown();
    return events.map((event) => `${event.level}:${event.count}`);
  }

  it('spans that started before its first onEnding are finished once, wherever the processor sits', async () => {
    const expected = ['warning:2', 'critical:4'];
    expect(await overlapping('processor-first')).toEqual(expected);
    expect(await overlapping('processor-last')).toEqual(expected);
  });
});
