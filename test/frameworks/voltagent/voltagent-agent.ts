import './offline.js';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Agent, createTool, VoltAgentObservability } from '@voltagent/core';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { argsFor, CALLS, TOOL_NAME, type LookupArgs, type ToolBody, type Variant } from '../harness/scenario.js';

type V3Result = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * The scenario's model for VoltAgent (which runs AI SDK 6 models): a tool call per step for the
 * first CALLS steps, then an answer. A real model client rejects once its `abortSignal` is
 * aborted; the mock does too.
 */
function scriptedModel(variant: Variant): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ abortSignal }): Promise<V3Result> => {
      abortSignal?.throwIfAborted();
      const at = step++;
      const done = at >= CALLS;
      return {
        content: done
          ? [{ type: 'text', text: 'done' }]
          : [
              {
                type: 'tool-call',
                toolCallId: `call-${at}`,
                toolName: TOOL_NAME,
                input: JSON.stringify(argsFor(variant, at)),
              },
            ],
        finishReason: done ? { unified: 'stop', raw: 'stop' } : { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/**
 * VoltAgent's OpenTelemetry pipeline: its own `NodeTracerProvider`, registered globally, with
 * its processors first and `spanProcessors` appended, each wrapped in its span filter. VoltOps
 * export is off (no keys here anyway). One per process: the provider registers itself globally.
 */
export function voltAgentObservability(spanProcessors: SpanProcessor[]): VoltAgentObservability {
  return new VoltAgentObservability({ spanProcessors, voltOpsSync: { sampling: { strategy: 'never' } } });
}

/** A VoltAgent agent with the scenario's model and tool (`execute` counts the runs). */
export function voltAgent(
  body: ToolBody,
  observability: VoltAgentObservability,
  execute: (args: LookupArgs) => Promise<unknown> = async (args) => body.run(args),
): Agent {
  const lookup = createTool({
    name: TOOL_NAME,
    description: 'Looks up an order',
    parameters: z.object({ orderId: z.string() }),
    execute,
  });
  return new Agent({
    id: 'order-agent',
    name: 'order-agent',
    instructions: 'Answer questions about orders.',
    model: scriptedModel(body.variant),
    tools: [lookup],
    observability,
  });
}

/** VoltAgent's tool spans: `tool.execution:<name>` with `span.type` = `tool`. */
export const voltAgentTool = (span: ReadableSpan): boolean => span.attributes['span.type'] === 'tool';
