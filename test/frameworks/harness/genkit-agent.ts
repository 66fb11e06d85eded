import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { genkit, z, type GenerateOptions, type GenerateRequest, type GenerateResponseData, type TelemetryConfig } from 'genkit';
import { argsFor, CALLS, TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

/**
 * How the scripted model is defined: Genkit's default model API (`v1`), whose runner receives
 * the request and a streaming callback only, or `apiVersion: 'v2'`, whose runner also receives
 * the call's options, `abortSignal` among them.
 */
export type GenkitModelApi = 'v1' | 'v2';

/**
 * A Genkit instance with a scripted model that requests the scenario's tool until it has seen
 * CALLS tool responses, and the tool around `execute`. Returns the options of the `generate`
 * call that runs the agent. Genkit hands `generate`'s `abortSignal` to v2 models only; the v2
 * model rejects once it is aborted, as a real model client given the signal does.
 */
export function genkitAgent(
  body: ToolBody,
  { model: api = 'v2', execute = async (args: LookupArgs) => body.run(args) }: { model?: GenkitModelApi; execute?: (args: LookupArgs) => Promise<unknown> } = {},
) {
  const ai = genkit({});
  const supports = { tools: true, multiturn: true };
  const respond = (request: GenerateRequest): GenerateResponseData => {
    const step = request.messages.flatMap((message) => message.content).filter((part) => part.toolResponse !== undefined).length;
    const content = step >= CALLS ? [{ text: 'done' }] : [{ toolRequest: { name: TOOL_NAME, input: argsFor(body.variant, step), ref: `call-${step}` } }];
    return { message: { role: 'model', content }, finishReason: 'stop' };
  };
  const model =
    api === 'v2'
      ? ai.defineModel({ apiVersion: 'v2', name: 'scripted-v2', supports }, async (request, { abortSignal }) => {
          abortSignal.throwIfAborted();
          return respond(request);
        })
      : ai.defineModel({ name: 'scripted-v1', supports }, async (request) => respond(request));
  const lookup = ai.defineTool({ name: TOOL_NAME, description: 'Looks up an order', inputSchema: z.object({ orderId: z.string() }) }, execute);
  const options = { model, tools: [lookup], prompt: 'Where is order 42?', maxTurns: CALLS + 1 } satisfies GenerateOptions;
  return { ai, options };
}

/**
 * The recipe's model middleware for `generate`'s `use`: rejects with the run's abort reason before
 * each model call once `signal` is aborted (Genkit checks no signal between turns, and gives it
 * to v2 models only).
 */
export function stopWhenAborted(signal: AbortSignal) {
  return async (request: GenerateRequest, next: (request?: GenerateRequest) => Promise<GenerateResponseData>) => {
    signal.throwIfAborted();
    return next(request);
  };
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
