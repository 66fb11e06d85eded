import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { genkit, z, type GenerateOptions, type TelemetryConfig } from 'genkit';
import { mockModel } from 'genkit/testing';
import { argsFor, CALLS, TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

/**
 * A Genkit instance with a scripted `mockModel` (Genkit's own test model) that requests the
 * scenario's tool until it has seen CALLS tool responses, and the tool around `execute`.
 * Returns the options of the `generate` call that runs the agent. Genkit hands `generate`'s
 * `abortSignal` to each model call and a real model client rejects once it is aborted; the
 * mock model ignores it, so the script rejects with its reason instead (`signal`).
 */
export function genkitAgent(
  body: ToolBody,
  execute: (args: LookupArgs) => Promise<unknown> = async (args) => body.run(args),
  signal?: AbortSignal,
) {
  const ai = genkit({});
  const model = mockModel(ai, {
    name: 'scripted',
    info: { supports: { tools: true, multiturn: true } },
    respond: (request) => {
      signal?.throwIfAborted();
      const step = request.messages.flatMap((message) => message.content).filter((part) => part.toolResponse !== undefined).length;
      return step >= CALLS ? { text: 'done' } : { toolRequests: [{ name: TOOL_NAME, input: argsFor(body.variant, step), ref: `call-${step}` }] };
    },
  });
  const lookup = ai.defineTool({ name: TOOL_NAME, description: 'Looks up an order', inputSchema: z.object({ orderId: z.string() }) }, execute);
  const options = { model, tools: [lookup], prompt: 'Where is order 42?', maxTurns: CALLS + 1 } satisfies GenerateOptions;
  return { ai, options };
}

/** Genkit's tool spans: its action spans of subtype `tool`. */
export const genkitTool = (span: ReadableSpan): boolean => span.attributes['genkit:metadata:subtype'] === 'tool';

type GenkitSpanProcessor = NonNullable<TelemetryConfig['spanProcessors']>[number];

/**
 * Genkit's telemetry config is typed with its SDK 1.x `SpanProcessor`, whose spans lack 2.x
 * `ReadableSpan` fields (`instrumentationScope`): 2.x processors must be cast to be passed.
 * At run time they are called as usual.
 */
export function asGenkitProcessors(processors: SpanProcessor[]): GenkitSpanProcessor[] {
  return processors as unknown as GenkitSpanProcessor[];
}
