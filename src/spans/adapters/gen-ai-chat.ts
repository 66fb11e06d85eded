import { ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_OUTPUT_MESSAGES } from '../../semconv.js';
import { isRecord } from '../../util/is-record.js';
import { parseJsonAttribute } from '../json-attribute.js';
import type { SpanView } from '../span-view.js';
import type { ChatToolCalls, RequestedToolCall, ToolResultMessage } from './adapter.js';
import { latestToolResults, roleOf } from './chat-messages.js';
import { stringValue } from './attribute-values.js';

/** A JSON message list attribute as a list (anything else: none). */
function messages(value: unknown): readonly unknown[] {
  const parsed = parseJsonAttribute(value);
  return Array.isArray(parsed) ? parsed : [];
}

function partsOf(message: unknown): readonly unknown[] {
  return isRecord(message) && Array.isArray(message.parts) ? message.parts : [];
}

/** The `tool_call` parts of a message: the calls it asks for. */
function requestedIn(message: unknown): RequestedToolCall[] {
  const calls: RequestedToolCall[] = [];
  for (const part of partsOf(message)) {
    if (!isRecord(part) || part.type !== 'tool_call') continue;
    const toolName = stringValue(part.name);
    if (toolName === undefined) continue;
    calls.push({ toolName, toolCallId: stringValue(part.id), arguments: part.arguments ?? undefined });
  }
  return calls;
}

/** The `tool_call_response` parts of a message: the results it sends. */
function resultsIn(message: unknown): ToolResultMessage[] {
  const results: ToolResultMessage[] = [];
  for (const part of partsOf(message))
    if (isRecord(part) && part.type === 'tool_call_response')
      results.push({ toolCallId: stringValue(part.id), result: part.response });
  return results;
}

/**
 * The tool calls of an OTel GenAI model-call span: `gen_ai.output.messages` (JSON `{role, parts}`
 * messages, one per choice) holds the calls the model asked for as `tool_call` parts (`id`,
 * `name`, `arguments`), read from the first message; `gen_ai.input.messages` holds the results
 * sent as `tool_call_response` parts (`id`, `response`) of tool messages.
 */
export function readGenAiChat(span: SpanView): ChatToolCalls {
  const output = messages(span.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES]);
  const input = messages(span.attributes[ATTR_GEN_AI_INPUT_MESSAGES]);
  return {
    requested: output.length > 0 ? requestedIn(output[0]) : [],
    results: latestToolResults(
      input.length,
      (i) => (isRecord(input[i]) ? roleOf(input[i].role) : undefined),
      (i) => resultsIn(input[i]),
    ),
  };
}
