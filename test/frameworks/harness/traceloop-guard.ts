import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { forceFlush, initialize } from '@traceloop/node-server-sdk';
import { traceRun, type LoopAbortEvent, type LoopEvent, type ToolLoopSpanProcessorOptions } from 'tool-loop-guard';
import { settle, type VariantRun } from './acceptance.js';
import { createGuard } from './guard.js';
import { ToolBody, type Variant } from './scenario.js';
import { OFFLINE, traceloopAgent } from './traceloop-agent.js';

/**
 * The Traceloop SDK's own pipeline as Traceloop documents it, the guard passed as
 * `initialize({ exporter, processor })`: its SDK 2.0.1 has no `onEnding`, and it runs the guard
 * after its exporting processor.
 */
export interface TraceloopPipeline {
  readonly events: LoopEvent[];
  readonly aborts: LoopAbortEvent[];
  readonly exporter: InMemorySpanExporter;
  /** Forgets what earlier tests saw (initialize runs once per process). */
  reset(): void;
  /** Runs the scripted agent inside `traceRun`, flushes the SDK's exporting processor. */
  run(variant: Variant): Promise<VariantRun>;
}

const traceloopTool = (span: ReadableSpan): boolean => span.attributes['traceloop.span.kind'] === 'tool';

/**
 * Keeps each span's attributes and events as they were when it was handed over, as an exporter
 * that serialises at once (OTLP) sends them: nothing added to the span later counts.
 */
class SnapshotExporter extends InMemorySpanExporter {
  override export(spans: ReadableSpan[], resultCallback: Parameters<InMemorySpanExporter['export']>[1]): void {
    super.export(spans.map(snapshot), resultCallback);
  }
}

function snapshot(span: ReadableSpan): ReadableSpan {
  const attributes = { ...span.attributes };
  const events = span.events.map((event) => ({ ...event, attributes: { ...event.attributes } }));
  return new Proxy(span, {
    get: (target, property, receiver) =>
      property === 'attributes' ? attributes : property === 'events' ? events : (Reflect.get(target, property, receiver) as unknown),
  });
}

export async function traceloopPipeline(options: ToolLoopSpanProcessorOptions = {}): Promise<TraceloopPipeline> {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const exporter = new SnapshotExporter();
  const processor = await createGuard(events, aborts, options);
  initialize({ ...OFFLINE, exporter, processor });
  const harness = { events, exported: () => exporter.getFinishedSpans() };
  return {
    events,
    aborts,
    exporter,
    reset: () => {
      events.length = 0;
      aborts.length = 0;
      exporter.reset();
    },
    run: async (variant) => {
      const body = new ToolBody(variant);
      const outcome = await settle(() =>
        traceRun(trace.getTracer('agent'), { runId: `traceloop-${variant}` }, ({ signal }) => traceloopAgent(body, signal)),
      );
      // The SDK's resource has async attributes: its SimpleSpanProcessor exports only after they settle.
      await forceFlush();
      return { harness, body, outcome, isCallSpan: traceloopTool };
    },
  };
}
