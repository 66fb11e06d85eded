import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { guardMastraTools, traceRun, traceToolCall } from 'tool-loop-guard';
import { afterAll, afterEach, describe } from 'vitest';
import { blockingWrapperTest, nestedToolSpanTest, settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { guardHarness, useAsyncContext, type GuardHarness } from '../harness/guard.js';
import { mastraAgent } from '../harness/mastra-agent.js';
import { CALLS, ToolBody, TOOL_NAME, type Variant } from '../harness/scenario.js';

afterAll(useAsyncContext());
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  trace.disable();
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

const mastraTool = (span: ReadableSpan): boolean => span.attributes['mastra.span.type'] === 'tool_call';

/**
 * The bridge uses the global tracer provider; the agent runs inside `traceRun`, its signal
 * passed on. `guardTool` wraps the tool body in `traceToolCall` (a span inside Mastra's).
 */
async function runAgent(variant: Variant, guardTool: boolean | 'guardMastraTools' = false): Promise<VariantRun> {
  const harness = await guardHarness(guardTool ? { abortOnCritical: false } : {});
  harnesses.push(harness);
  trace.setGlobalTracerProvider(harness.provider);
  const body = new ToolBody(variant);
  const tracer = trace.getTracer('agent');
  const agent = mastraAgent(
    body,
    guardTool === true ? (args) => traceToolCall(tracer, { name: TOOL_NAME, args }, () => body.run(args)) : undefined,
    guardTool === 'guardMastraTools' ? (tools) => guardMastraTools(tools, { tracer }) : undefined,
  );
  const outcome = await settle(() =>
    traceRun(tracer, { runId: randomUUID() }, ({ signal }) =>
      agent.generate('Where is order 42?', { maxSteps: CALLS + 1, abortSignal: signal }),
    ),
  );
  return { harness, body, outcome, isCallSpan: mastraTool };
}

describe('Mastra Agent.generate + @mastra/otel-bridge inside traceRun', () => {
  variantTests({}, (variant) => runAgent(variant));
  // Mastra's tool span is judged at its end; the guarded span inside it was the call.
  nestedToolSpanTest(undefined, () => runAgent('loop', true));
  blockingWrapperTest(() => runAgent('loop', 'guardMastraTools'));
});
