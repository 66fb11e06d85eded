import { randomUUID } from 'node:crypto';
import type { ReadableSpan, SpanLimits } from '@opentelemetry/sdk-trace-base';
import { traceRun, traceToolCall } from 'tool-loop-guard';
import { afterEach } from 'vitest';
import { settle, type VariantRun } from './acceptance.js';
import { guardHarness, type GuardHarness } from './guard.js';
import { openAiAgent, openAiTestFile, type CallRunner } from './openai-agent.js';
import type { OpenAiInstrumentationName } from './openai-instrumentations.js';
import { ToolBody, type Variant } from './scenario.js';

/**
 * Span attributes a provider allows in the recipes for instrumentations that flatten every
 * message into attributes (several per message): the SDK's default of 128 fills up after about
 * 17 turns of OpenInference's, and the output messages set last are dropped.
 */
export const FLATTENED_MESSAGES_LIMITS = { attributeCountLimit: 10_000 } as const;

/** The chat spans of each instrumentation: one per model call, in order (the last one asks for no call). */
const CHAT_SPAN: Record<OpenAiInstrumentationName, (span: ReadableSpan) => boolean> = {
  openinference: (span) => span.attributes['openinference.span.kind'] === 'LLM',
  openllmetry: (span) => span.attributes['gen_ai.operation.name'] === 'chat',
  'openllmetry-0.22': (span) => span.attributes['llm.request.type'] === 'chat',
};

/** A tool span of the calls (`traceToolCall` with the model's call id) besides the chat spans. */
const isToolSpan = (span: ReadableSpan): boolean => span.attributes['gen_ai.operation.name'] === 'execute_tool';

/** How a run of {@link openAiRuns} differs from the recipe's. */
export interface OpenAiRunOptions {
  /** The provider's span limits (default: {@link FLATTENED_MESSAGES_LIMITS} for the flattening instrumentations). */
  readonly spanLimits?: SpanLimits;
  /** Run each call inside `traceToolCall` with the model's call id: the calls have tool spans too. */
  readonly toolSpans?: boolean;
}

/**
 * The hand-written `openai` loop of a test file under one LLM-client instrumentation, against the
 * scripted server (started and stopped with the file). Each run: the guard first on a fresh
 * provider (`abortOnCritical`), the loop inside `traceRun`, checking `processor.runSignal(runId)`
 * after each model call. The call spans are the chat spans, or with `toolSpans` the tool spans.
 */
export function openAiRuns(
  name: OpenAiInstrumentationName,
): (variant: Variant, options?: OpenAiRunOptions) => Promise<VariantRun> {
  const file = openAiTestFile(name);
  const harnesses: GuardHarness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
  });
  return async (variant, options = {}) => {
    const { spanLimits = name === 'openllmetry' ? undefined : FLATTENED_MESSAGES_LIMITS, toolSpans = false } = options;
    const harness = await guardHarness({}, spanLimits);
    harnesses.push(harness);
    file.useProvider(harness.provider);
    const body = new ToolBody(variant);
    const runId = randomUUID();
    const signal = harness.processor.runSignal(runId);
    const client = file.client();
    const tracer = harness.provider.getTracer('agent');
    const runCall: CallRunner | undefined = toolSpans
      ? ({ name: tool, args, callId }, run) => traceToolCall(tracer, { name: tool, args, callId }, run)
      : undefined;
    const outcome = await settle(() => traceRun(tracer, { runId }, () => openAiAgent(client, body, signal, runCall)));
    return { harness, body, outcome, isCallSpan: toolSpans ? isToolSpan : CHAT_SPAN[name] };
  };
}
