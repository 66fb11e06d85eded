import { randomUUID } from 'node:crypto';
import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText as generateText7, isStepCount, tool as tool7 } from 'ai';
import { generateText as generateText5, stepCountIs as stepCountIs5, tool as tool5 } from 'ai5';
import { generateText as generateText6, stepCountIs as stepCountIs6, tool as tool6 } from 'ai6';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { guardAiSdkTools, traceRun, traceToolCall, type ToolLoopSpanProcessorOptions } from 'tool-loop-guard';
import { afterAll, afterEach, describe } from 'vitest';
import { z } from 'zod';
import { blockingWrapperTest, nestedToolSpanTest, settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { scriptedModelV2, scriptedModelV3, scriptedModelV4 } from '../harness/ai-sdk-models.js';
import { guardHarness, useAsyncContext, type GuardHarness } from '../harness/guard.js';
import { CALLS, ToolBody, TOOL_NAME, type LookupArgs, type Variant } from '../harness/scenario.js';

afterAll(useAsyncContext());
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

async function open(options: ToolLoopSpanProcessorOptions = {}): Promise<GuardHarness> {
  const harness = await guardHarness(options);
  harnesses.push(harness);
  return harness;
}

const inputSchema = z.object({ orderId: z.string() });
const aiToolCall = (span: ReadableSpan): boolean => span.name === 'ai.toolCall';
// @ai-sdk/otel's own execute_tool spans (they carry gen_ai.tool.type; traceToolCall's do not).
const executeTool = (span: ReadableSpan): boolean => span.attributes['gen_ai.operation.name'] === 'execute_tool' && 'gen_ai.tool.type' in span.attributes;

/** ai@5 / ai@6 recipe: `metadata.runId` scopes the run, `runSignal(runId)` aborts it. `guard`: the tools through `guardAiSdkTools`. */
async function runV5(variant: Variant, guard = false): Promise<VariantRun> {
  const harness = await open(guard ? { abortOnCritical: false } : {});
  const body = new ToolBody(variant);
  const runId = randomUUID();
  const tracer = harness.provider.getTracer('agent');
  const tools = { [TOOL_NAME]: tool5({ inputSchema, execute: async (args) => body.run(args) }) };
  const outcome = await settle(() =>
    generateText5({
      model: scriptedModelV2(variant),
      tools: guard ? guardAiSdkTools(tools, { tracer }) : tools,
      prompt: 'Where is order 42?',
      stopWhen: stepCountIs5(CALLS + 1),
      experimental_telemetry: { isEnabled: true, tracer, metadata: { runId } },
      abortSignal: harness.processor.runSignal(runId),
    }),
  );
  return { harness, body, outcome, isCallSpan: aiToolCall };
}

async function runV6(variant: Variant): Promise<VariantRun> {
  const harness = await open();
  const body = new ToolBody(variant);
  const runId = randomUUID();
  const outcome = await settle(() =>
    generateText6({
      model: scriptedModelV3(variant),
      tools: { [TOOL_NAME]: tool6({ inputSchema, execute: async (args) => body.run(args) }) },
      prompt: 'Where is order 42?',
      stopWhen: stepCountIs6(CALLS + 1),
      experimental_telemetry: { isEnabled: true, tracer: harness.provider.getTracer('agent'), metadata: { runId } },
      abortSignal: harness.processor.runSignal(runId),
    }),
  );
  return { harness, body, outcome, isCallSpan: aiToolCall };
}

/**
 * ai@7 recipe: `@ai-sdk/otel` emits GenAI spans; `traceRun` scopes the run and gives its
 * signal. `guardTool` wraps the tool body in `traceToolCall` (a span inside the SDK's).
 */
async function runV7(variant: Variant, guard: 'traceToolCall' | 'guardAiSdkTools' | undefined = undefined): Promise<VariantRun> {
  const harness = await open(guard ? { abortOnCritical: false } : {});
  const body = new ToolBody(variant);
  const tracer = harness.provider.getTracer('agent');
  const execute =
    guard === 'traceToolCall'
      ? (args: LookupArgs) => traceToolCall(tracer, { name: TOOL_NAME, args }, () => body.run(args))
      : async (args: LookupArgs) => body.run(args);
  const tools = { [TOOL_NAME]: tool7({ inputSchema, execute }) };
  const outcome = await settle(() =>
    traceRun(tracer, { runId: randomUUID(), agentId: 'order-agent' }, ({ signal }) =>
      generateText7({
        model: scriptedModelV4(variant),
        tools: guard === 'guardAiSdkTools' ? guardAiSdkTools(tools, { tracer }) : tools,
        prompt: 'Where is order 42?',
        stopWhen: isStepCount(CALLS + 1),
        telemetry: { integrations: [new OpenTelemetry({ tracer })] },
        abortSignal: signal,
      }),
    ),
  );
  return { harness, body, outcome, isCallSpan: executeTool };
}

describe('ai@5 (ai.toolCall spans, metadata.runId)', () => {
  variantTests({}, (variant) => runV5(variant));
  blockingWrapperTest(() => runV5('loop', true));
});

describe('ai@6 (ai.toolCall spans, metadata.runId)', () => {
  variantTests({}, runV6);
});

describe('ai@7 + @ai-sdk/otel (execute_tool spans, traceRun)', () => {
  variantTests({}, (variant) => runV7(variant));
  // The SDK's execute_tool span is judged at start; the traceToolCall span inside it takes its verdict.
  nestedToolSpanTest(undefined, () => runV7('loop', 'traceToolCall'));
  blockingWrapperTest(() => runV7('loop', 'guardAiSdkTools'));
});
