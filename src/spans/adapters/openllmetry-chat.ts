import { ATTR_GEN_AI_COMPLETION, ATTR_GEN_AI_PROMPT } from '../../semconv.js';
import type { SpanView } from '../span-view.js';
import type { ChatToolCalls, RequestedToolCall } from './adapter.js';
import { flattenedCount, latestToolResults, roleOf } from './chat-messages.js';
import { stringValue } from './attribute-values.js';

/**
 * The calls completion 0 asks for: `gen_ai.completion.0.tool_calls.<j>.{name,arguments,id}` (no
 * `id` from the JS instrumentations), or the older `function_call.{name,arguments}`.
 */
function requested(span: SpanView): RequestedToolCall[] {
  const calls = `${ATTR_GEN_AI_COMPLETION}.0.tool_calls`;
  const count = flattenedCount(span, calls, 'name');
  const found: RequestedToolCall[] = [];
  for (let j = 0; j < count; j += 1) {
    const toolName = stringValue(span.attributes[`${calls}.${j}.name`]);
    if (toolName !== undefined)
      found.push({
        toolName,
        toolCallId: stringValue(span.attributes[`${calls}.${j}.id`]),
        arguments: span.attributes[`${calls}.${j}.arguments`],
      });
  }
  const legacy = stringValue(span.attributes[`${ATTR_GEN_AI_COMPLETION}.0.function_call.name`]);
  if (found.length === 0 && legacy !== undefined)
    found.push({ toolName: legacy, arguments: span.attributes[`${ATTR_GEN_AI_COMPLETION}.0.function_call.arguments`] });
  return found;
}

/**
 * The tool calls of an OpenLLMetry model-call span with flattened messages (its JS LLM
 * instrumentations before 0.25, its Python ones): the calls the model asked for are
 * `gen_ai.completion.0.tool_calls.<j>.*`, the results sent are the `tool` messages among
 * `gen_ai.prompt.<i>.{role,content,tool_call_id}`. Without call ids (the JS instrumentations
 * record none), results are matched to the calls by position.
 */
export function readOpenLlmetryChat(span: SpanView): ChatToolCalls {
  const count = flattenedCount(span, ATTR_GEN_AI_PROMPT, 'role');
  return {
    requested: requested(span),
    results: latestToolResults(
      count,
      (i) => roleOf(span.attributes[`${ATTR_GEN_AI_PROMPT}.${i}.role`]),
      (i) => [
        {
          toolCallId: stringValue(span.attributes[`${ATTR_GEN_AI_PROMPT}.${i}.tool_call_id`]),
          result: span.attributes[`${ATTR_GEN_AI_PROMPT}.${i}.content`],
        },
      ],
    ),
  };
}
