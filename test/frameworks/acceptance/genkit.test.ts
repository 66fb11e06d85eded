import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { disableGenkitOTelInitialization, disableOTelRootSpanDetection } from 'genkit/tracing';
import { ToolLoopBlockedError, traceRun } from 'tool-loop-guard';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { genkitAgent, genkitTool, stopWhenAborted, type GenkitModelApi } from '../harness/genkit-agent.js';
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

/** How `generate` is called: with the run's signal only, or also with the middleware that stops a v1 model. */
type Stop = 'signal' | 'signal + middleware';

/**
 * Genkit on the app's tracer provider (its own OTel setup and root-span detection disabled, so
 * its spans join the active trace), `generate` inside `traceRun` with the run's signal; with
 * `signal + middleware`, also the recipe's model middleware that checks the signal before each
 * model call.
 */
async function runAgent(variant: Variant, model: GenkitModelApi, stop: Stop): Promise<VariantRun> {
  const harness = await guardHarness();
  harnesses.push(harness);
  trace.setGlobalTracerProvider(harness.provider);
  const body = new ToolBody(variant);
  const outcome = await settle(() =>
    traceRun(trace.getTracer('agent'), { runId: randomUUID() }, ({ signal }) => {
      const { ai, options } = genkitAgent(body, { model });
      const use = stop === 'signal + middleware' ? [stopWhenAborted(signal)] : [];
      return ai.generate({ ...options, abortSignal: signal, use });
    }),
  );
  return { harness, body, outcome, isCallSpan: genkitTool };
}

describe('Genkit generate on the app provider (disableGenkitOTelInitialization + disableOTelRootSpanDetection), inside traceRun', () => {
  describe('a v2 model (apiVersion: v2: abortSignal reaches it)', () => {
    variantTests({}, (variant) => runAgent(variant, 'v2', 'signal'));
  });

  describe('a v1 model (the default API) with the middleware that checks the signal before each model call', () => {
    variantTests({}, (variant) => runAgent(variant, 'v1', 'signal + middleware'));
  });

  it('a v1 model with the signal alone: critical at call 21, the signal aborted, and all 30 calls run', async () => {
    const run = await runAgent('loop', 'v1', 'signal');
    expect(run.harness.events.filter((event) => event.level === 'critical').length).toBeGreaterThan(0);
    expect(run.body.executions).toBe(30);
    // traceRun still rejects with the abort reason once the body has settled.
    expect(run.outcome.error).toBeInstanceOf(ToolLoopBlockedError);
  });
});
