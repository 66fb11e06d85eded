import { setMaxListeners } from 'node:events';
import type { TracerProvider } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { useAsyncContext } from './guard.js';
import { instrumentOpenAi, type OpenAiInstrumentationName } from './openai-instrumentations.js';
import { modelFor, startScriptedOpenAiServer, type ScriptedOpenAiServer } from './scripted-openai-server.js';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { CALLS, TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAME,
      description: 'Look an order up by id.',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  },
];

/** A client of the scripted server (no API key needed; no retries, so a failure shows at once). */
export function scriptedClient(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: 'not-needed', maxRetries: 0 });
}

/** What a test file of one LLM-client instrumentation runs its loops with. */
export interface OpenAiTestFile {
  /** Points the instrumentation at a provider. */
  readonly useProvider: (provider: TracerProvider) => void;
  /** A client of the file's scripted server (started before its tests). */
  client(): OpenAI;
}

/**
 * Sets a test file up for one LLM-client instrumentation: the async context manager, the
 * instrumented client, and the scripted server, started before the file's tests and stopped after.
 */
export function openAiTestFile(name: OpenAiInstrumentationName): OpenAiTestFile {
  afterAll(useAsyncContext());
  const useProvider = instrumentOpenAi(name);
  let server: ScriptedOpenAiServer;
  beforeAll(async () => {
    server = await startScriptedOpenAiServer();
  });
  afterAll(() => server.close());
  return { useProvider, client: () => scriptedClient(server.baseURL) };
}

/** Runs one call the model asked for (`run` executes the tool); what it returns is sent back (as JSON unless a string). */
export type CallRunner = (call: { name: string; args: LookupArgs; callId: string }, run: () => string) => unknown;

/**
 * The agent loop people write around a bare LLM client: ask the model, run the tool calls it
 * asks for, send their results back, until it answers. It checks the run's signal after each
 * model call, before running the calls that model call asked for. `runCall`: how a call is run
 * (default: the tool, directly).
 */
export async function openAiAgent(
  client: OpenAI,
  body: ToolBody,
  signal: AbortSignal,
  runCall: CallRunner = (_call, run) => run(),
): Promise<void> {
  // The client adds an abort listener to the signal per request: a run makes CALLS + 1 requests.
  setMaxListeners(CALLS + 2, signal);
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is order 42?' }];
  for (let step = 0; step <= CALLS; step += 1) {
    const completion = await client.chat.completions.create(
      { model: modelFor(body.variant), messages, tools: TOOLS },
      { signal },
    );
    const { message } = completion.choices[0];
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return;
    signal.throwIfAborted();
    messages.push(message);
    for (const call of calls) {
      if (call.type !== 'function') continue;
      const args = JSON.parse(call.function.arguments) as LookupArgs;
      const result = await runCall({ name: call.function.name, args, callId: call.id }, () => body.run(args));
      messages.push({ role: 'tool', tool_call_id: call.id, content: typeof result === 'string' ? result : JSON.stringify(result) });
    }
  }
}
