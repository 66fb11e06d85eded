import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { disableGenkitOTelInitialization, disableOTelRootSpanDetection } from 'genkit/tracing';
import { traceRun } from 'tool-loop-guard';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { genkitAgent, genkitTool } from '../harness/genkit-agent.js';
import { guardHarness, useAsyncContext, type GuardHarness } from '../harness/guard.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

afterAll(useAsyncContext());
beforeAll(() => {
  disableGenkitOTelInitialization();
  disableOTelRootSpanDetection();
});
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  trace.disable();
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

/**
 * Genkit on the app's tracer provider (its own OTel setup and root-span detection disabled, so
 * its spans join the active trace), `generate` inside `traceRun` with the run's signal.
 */
async function runAgent(variant: Variant): Promise<VariantRun> {
  const harness = await guardHarness();
  harnesses.push(harness);
  trace.setGlobalTracerProvider(harness.provider);
  const body = new ToolBody(variant);
  const outcome = await settle(() =>
    traceRun(trace.getTracer('agent'), { runId: randomUUID() }, ({ signal }) => {
      const { ai, options } = genkitAgent(body, undefined, signal);
      return ai.generate({ ...options, abortSignal: signal });
    }),
  );
  return { harness, body, outcome, isCallSpan: genkitTool };
}

describe('Genkit generate on the app provider (disableGenkitOTelInitialization + disableOTelRootSpanDetection), inside traceRun', () => {
  variantTests({}, runAgent);
});
