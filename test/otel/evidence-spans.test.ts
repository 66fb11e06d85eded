/**
 * The evidence span itself, written with a given tracer: a critical's (deny, block, ERROR), a
 * warning's (warn, allow, UNSET), with the loop event on it and at the verdict's time when asked
 * (`tool-loop-guard serve` judges after the fact, under a span it only knows by its ids).
 */
import { SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { emitEvidenceSpan, type Evidence } from '../../src/otel/evidence-spans.js';
import * as sc from '../../src/semconv.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const TOOL_SPAN = 'b7ad6b7169203331';
const OTHER_CALL = '00f067aa0ba902b7';

function emitted(evidence: Partial<Evidence>) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const toolSpan = trace.wrapSpanContext({
    traceId: TRACE,
    spanId: TOOL_SPAN,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  emitEvidenceSpan(provider.getTracer('test'), toolSpan, {
    judged: 'call',
    attributes: { [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat', [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' },
    message: 'loop',
    members: [
      { traceId: TRACE, spanId: OTHER_CALL },
      { traceId: TRACE, spanId: TOOL_SPAN },
    ],
    shadow: false,
    ...evidence,
  });
  const [span] = exporter.getFinishedSpans();
  return span;
}

describe('emitEvidenceSpan', () => {
  it("writes a critical's evidence as a child of the tool span known by its ids, linked to the other members", () => {
    const span = emitted({});
    expect(span.name).toBe('run_guardrail tool-loop-guard');
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(TOOL_SPAN);
    expect(span.links.map((link) => link.context.spanId)).toEqual([OTHER_CALL]);
    expect(span.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'deny',
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'block',
    });
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'loop' });
    expect(span.events).toEqual([]);
  });

  it("writes a warning's evidence as allowed, with its loop event, at the verdict's time", () => {
    const time = Date.UTC(2026, 0, 1);
    const span = emitted({ warning: true, event: sc.EVENT_TOOL_LOOP_WARNING, time });
    expect(span.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'warn',
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'allow',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.startTime).toEqual([time / 1000, 0]);
    expect(span.endTime).toEqual([time / 1000, 0]);
    // The event keeps the tool's name: the collector's count connector labels by it.
    expect(span.events).toEqual([
      {
        name: sc.EVENT_TOOL_LOOP_WARNING,
        time: [time / 1000, 0],
        attributes: { [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat', [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' },
        droppedAttributesCount: 0,
      },
    ]);
  });
});
