import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { enableTelemetry, flushTracing } from 'genkit/tracing';
import { traceRun, type LoopAbortEvent, type LoopEvent } from 'tool-loop-guard';
import { beforeAll, beforeEach, describe } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { asGenkitProcessors, genkitAgent, genkitTool } from '../harness/genkit-agent.js';
import { createGuard } from '../harness/guard.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

const events: LoopEvent[] = [];
const aborts: LoopAbortEvent[] = [];
const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  // Genkit's own OTel setup: a NodeSDK (sdk-node 0.52, sdk-trace-base 1.25) that puts its
  // telemetry-server processor first and the given processors after it.
  const processors = [await createGuard(events, aborts), new SimpleSpanProcessor(exporter)];
  await enableTelemetry({ spanProcessors: asGenkitProcessors(processors) });
});
beforeEach(() => {
  events.length = 0;
  aborts.length = 0;
  exporter.reset();
});

/** `generate` inside `traceRun`, whose signal it is given; Genkit starts its own trace regardless. */
async function runAgent(variant: Variant): Promise<VariantRun> {
  const body = new ToolBody(variant);
  const { ai, options } = genkitAgent(body);
  const outcome = await settle(() =>
    traceRun(trace.getTracer('agent'), { runId: `genkit-${variant}` }, ({ signal }) => ai.generate({ ...options, abortSignal: signal })),
  );
  await flushTracing();
  return { harness: { events, exported: () => exporter.getFinishedSpans() }, body, outcome, isCallSpan: genkitTool };
}

describe("Genkit generate with its own telemetry (enableTelemetry({ spanProcessors: [guard, exporting] })), inside traceRun", () => {
  const reason = 'no adapter reads Genkit spans, and its generate span starts its own trace outside traceRun: nothing is detected';
  variantTests(
    { loop: { reason, failing: ['warned-at-11', 'critical-at-21', 'exported-events', 'stopped'] }, healthy: { reason, failing: ['warned-at-11'] } },
    runAgent,
  );
});
