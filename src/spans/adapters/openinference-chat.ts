import {
  ATTR_OPENINFERENCE_INPUT_MESSAGES,
  ATTR_OPENINFERENCE_OUTPUT_MESSAGES,
  OPENINFERENCE_MESSAGE_CONTENT,
  OPENINFERENCE_MESSAGE_CONTENT_TEXT,
  OPENINFERENCE_MESSAGE_CONTENTS,
  OPENINFERENCE_MESSAGE_ROLE,
  OPENINFERENCE_MESSAGE_TOOL_CALL_ID,
  OPENINFERENCE_MESSAGE_TOOL_CALLS,
  OPENINFERENCE_TOOL_CALL_FUNCTION_ARGUMENTS,
  OPENINFERENCE_TOOL_CALL_FUNCTION_NAME,
  OPENINFERENCE_TOOL_CALL_ID,
} from '../../semconv.js';
import type { SpanView } from '../span-view.js';
import type { ChatToolCalls, RequestedToolCall, ToolResultMessage } from './adapter.js';
import { flattenedCount, latestToolResults, roleOf } from './chat-messages.js';
import { stringValue } from './attribute-values.js';

/** The calls message `<prefix>` asks for: `<prefix>.message.tool_calls.<j>.tool_call.{id,function.name,function.arguments}`. */
function requestedIn(span: SpanView, prefix: string): RequestedToolCall[] {
  const calls = `${prefix}.${OPENINFERENCE_MESSAGE_TOOL_CALLS}`;
  const count = flattenedCount(span, calls, OPENINFERENCE_TOOL_CALL_FUNCTION_NAME);
  const requested: RequestedToolCall[] = [];
  for (let j = 0; j < count; j += 1) {
    const toolName = stringValue(span.attributes[`${calls}.${j}.${OPENINFERENCE_TOOL_CALL_FUNCTION_NAME}`]);
    if (toolName === undefined) continue;
    requested.push({
      toolName,
      toolCallId: stringValue(span.attributes[`${calls}.${j}.${OPENINFERENCE_TOOL_CALL_ID}`]),
      arguments: span.attributes[`${calls}.${j}.${OPENINFERENCE_TOOL_CALL_FUNCTION_ARGUMENTS}`],
    });
  }
  return requested;
}

/** The result tool message `<prefix>` sends: its `message.content`, else its text contents in order. */
function resultIn(span: SpanView, prefix: string): ToolResultMessage {
  const toolCallId = stringValue(span.attributes[`${prefix}.${OPENINFERENCE_MESSAGE_TOOL_CALL_ID}`]);
  const content = span.attributes[`${prefix}.${OPENINFERENCE_MESSAGE_CONTENT}`];
  if (content !== undefined) return { toolCallId, result: content };
  const contents = `${prefix}.${OPENINFERENCE_MESSAGE_CONTENTS}`;
  const texts: unknown[] = [];
  const count = flattenedCount(span, contents, OPENINFERENCE_MESSAGE_CONTENT_TEXT);
  for (let k = 0; k < count; k += 1)
    texts.push(span.attributes[`${contents}.${k}.${OPENINFERENCE_MESSAGE_CONTENT_TEXT}`]);
  return { toolCallId, result: texts.length === 1 ? texts[0] : texts };
}

/**
 * The tool calls of an OpenInference LLM span (`@arizeai/openinference-instrumentation-openai`
 * and the other client instrumentations), from its flattened messages: the calls the model asked
 * for are `llm.output_messages.0.message.tool_calls.<j>.tool_call.*` (`id`, `function.name`,
 * `function.arguments` as JSON text), the results sent are the `tool` messages of
 * `llm.input_messages.<i>.message.*` (`role`, `content`, `tool_call_id`).
 */
export function readOpenInferenceChat(span: SpanView): ChatToolCalls {
  const input = ATTR_OPENINFERENCE_INPUT_MESSAGES;
  const count = flattenedCount(span, input, OPENINFERENCE_MESSAGE_ROLE);
  return {
    requested: requestedIn(span, `${ATTR_OPENINFERENCE_OUTPUT_MESSAGES}.0`),
    results: latestToolResults(
      count,
      (i) => roleOf(span.attributes[`${input}.${i}.${OPENINFERENCE_MESSAGE_ROLE}`]),
      (i) => [resultIn(span, `${input}.${i}`)],
    ),
  };
}
