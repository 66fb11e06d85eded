import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_PROMPT,
  ATTR_LLM_REQUEST_TYPE,
  ATTR_TRACELOOP_ENTITY_INPUT,
  ATTR_TRACELOOP_ENTITY_NAME,
  ATTR_TRACELOOP_ENTITY_OUTPUT,
  ATTR_TRACELOOP_SPAN_KIND,
  LLM_REQUEST_TYPE_CHAT,
  TRACELOOP_SPAN_KIND_TOOL,
} from '../../semconv.js';
import { parseJsonAttribute } from '../json-attribute.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringValue } from './attribute-values.js';
import { readOpenLlmetryChat } from './openllmetry-chat.js';
import { isRecord } from '../../util/is-record.js';

/**
 * The parameters inside Traceloop's input envelope. Both SDKs write `{"args": [...], "kwargs": {...}}`
 * (the JS SDK puts a lone object parameter in `kwargs` with `args: []`). Unwrapped to the
 * `kwargs` object when there are no positional args, to the lone positional arg when there
 * are no kwargs, else kept whole. Anything that is not such an envelope is used as it is.
 */
export function unwrapTraceloopInput(value: unknown): unknown {
  const parsed = parseJsonAttribute(value);
  if (!isRecord(parsed) || !Array.isArray(parsed.args) || !isRecord(parsed.kwargs) || Object.keys(parsed).length !== 2)
    return parsed;
  const { args, kwargs } = parsed;
  if (args.length === 0) return kwargs;
  if (Object.keys(kwargs).length === 0 && args.length === 1) return args[0];
  return parsed;
}

function match(span: SpanView): ToolCallStart | undefined {
  if (span.attributes[ATTR_TRACELOOP_SPAN_KIND] !== TRACELOOP_SPAN_KIND_TOOL) return undefined;
  const toolName = stringValue(span.attributes[ATTR_TRACELOOP_ENTITY_NAME]);
  if (toolName === undefined) return undefined;
  const input = span.attributes[ATTR_TRACELOOP_ENTITY_INPUT];
  return { toolName, arguments: input === undefined ? undefined : unwrapTraceloopInput(input) };
}

/**
 * Traceloop / OpenLLMetry `withTool` / `@tool` spans: `traceloop.span.kind` = `tool`,
 * `traceloop.entity.name`, `traceloop.entity.input` (a JSON envelope, unwrapped by
 * {@link unwrapTraceloopInput}) and `traceloop.entity.output` (JSON of the return value).
 *
 * The SDKs start the span first and set these attributes inside it, so a processor sees
 * nothing at `onStart`: these spans are matched and judged at end (detect, annotate, abort —
 * not block). Run scope: the trace, or a `tool_loop.run_id` on an ancestor.
 *
 * Model-call spans of OpenLLMetry's LLM instrumentations with flattened messages
 * (`llm.request.type` = `chat` and `gen_ai.prompt.<i>.*`: its JS instrumentations before 0.25,
 * its Python ones) are read as they end for the tool calls in them (see
 * {@link readOpenLlmetryChat}). `redactContent` removes every `gen_ai.prompt.*` /
 * `gen_ai.completion.*` attribute of such spans.
 */
export const traceloopAdapter: ToolSpanAdapter = {
  name: 'traceloop',
  contentAttributes: [ATTR_TRACELOOP_ENTITY_INPUT, ATTR_TRACELOOP_ENTITY_OUTPUT],
  contentAttributePrefixes: [`${ATTR_GEN_AI_PROMPT}.`, `${ATTR_GEN_AI_COMPLETION}.`],
  triggers: { attributes: [ATTR_TRACELOOP_SPAN_KIND, ATTR_LLM_REQUEST_TYPE] },
  matchStart: match,
  matchEnd: match,
  matchChat: (span) =>
    span.attributes[ATTR_LLM_REQUEST_TYPE] === LLM_REQUEST_TYPE_CHAT &&
    span.attributes[`${ATTR_GEN_AI_PROMPT}.0.role`] !== undefined,
  readChat: readOpenLlmetryChat,
  readEnd(span) {
    const end = readToolCallEnd(
      span,
      span.attributes[ATTR_TRACELOOP_ENTITY_INPUT],
      span.attributes[ATTR_TRACELOOP_ENTITY_OUTPUT],
    );
    return end.arguments === undefined ? end : { ...end, arguments: unwrapTraceloopInput(end.arguments) };
  },
};
