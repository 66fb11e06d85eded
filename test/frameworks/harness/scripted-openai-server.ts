import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { argsFor, CALLS, TOOL_NAME, type Variant, VARIANTS } from './scenario.js';

/** The scripted model of each variant, as the `model` a request names. */
export const modelFor = (variant: Variant): string => `scripted-${variant}`;

/** A local OpenAI-compatible chat-completions endpoint (127.0.0.1 only, no network). */
export interface ScriptedOpenAiServer {
  /** The base URL for the `openai` client (`…/v1`). */
  readonly baseURL: string;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

interface ChatRequest {
  readonly model?: unknown;
  readonly messages?: unknown;
}

async function readJson(request: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}

/**
 * The scripted reply to a request: while fewer than CALLS tool results were sent, one call of
 * TOOL_NAME with the variant's arguments for that call (id `call_<n>`); then a final answer.
 */
function reply(request: ChatRequest): unknown {
  const variant = VARIANTS.find((candidate) => modelFor(candidate) === request.model);
  if (!variant) throw new Error(`unknown model ${String(request.model)}`);
  const messages = Array.isArray(request.messages) ? (request.messages as Array<{ role?: unknown }>) : [];
  const call = messages.filter((message) => message.role === 'tool').length;
  const message =
    call < CALLS
      ? {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: `call_${call}`,
              type: 'function',
              function: { name: TOOL_NAME, arguments: JSON.stringify(argsFor(variant, call)) },
            },
          ],
        }
      : { role: 'assistant', content: 'Order 42 is on its way.', refusal: null };
  return {
    id: `chatcmpl-${call}`,
    object: 'chat.completion',
    created: 1_800_000_000,
    model: request.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: call < CALLS ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 20 + call, completion_tokens: 10, total_tokens: 30 + call },
  };
}

/** Starts the server on an ephemeral port of 127.0.0.1; whoever starts it closes it. */
export async function startScriptedOpenAiServer(): Promise<ScriptedOpenAiServer> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    readJson(request)
      .then((body) => {
        requests += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply(body)));
      })
      .catch((error: unknown) => {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: String(error) } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
