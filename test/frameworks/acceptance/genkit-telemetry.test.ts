import { trace } from '@opentelemetry/api';
import { disableOTelRootSpanDetection, enableTelemetry, flushTracing } from 'genkit/tracing';
import { traceRun } from 'tool-loop-guard';
import { beforeAll, describe } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { asGenkitProcessors, genkitAgent, genkitTool, stopWhenAborted } from '../harness/genkit-agent.js';
import { fileGuard } from '../harness/guard.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

const pipeline = fileGuard();
beforeAll(async () => {
  // Genkit's own OTel setup: a NodeSDK (sdk-node 0.52, sdk-trace-base 1.25) that puts its
  // telemetry-server processor first and the given processors after it. Its SDK has no
  // onEnding: the exporter is wrapped so that loop events reach the exported spans.
  await enableTelemetry({ spanProcessors: asGenkitProcessors(pipeline.processors()) });
  // Without it, every generate starts its own trace, outside traceRun (and its signal).
  disableOTelRootSpanDetection();
});

/** `generate` of a v1 model inside `traceRun`, with its signal and the recipe's middleware. */
async function runAgent(variant: Variant): Promise<VariantRun> {
  const body = new ToolBody(variant);
  const outcome = await settle(() =>
    traceRun(trace.getTracer('agent'), { runId: `genkit-${variant}` }, ({ signal }) => {
      const { ai, options } = genkitAgent(body, { model: 'v1' });
      return ai.generate({ ...options, abortSignal: signal, use: [stopWhenAborted(signal)] });
    }),
  );
  await flushTracing();
  return { harness: pipeline.observed, body, outcome, isCallSpan: genkitTool };
}

describe('Genkit generate (a v1 model, the stop middleware) with its own telemetry (enableTelemetry({ spanProcessors: [guard, exporting] })), root-span detection off, inside traceRun', () => {
  variantTests({}, runAgent);
});
