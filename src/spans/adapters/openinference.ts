import {
  ATTR_OPENINFERENCE_INPUT_MESSAGES,
  ATTR_OPENINFERENCE_INPUT_VALUE,
  ATTR_OPENINFERENCE_OUTPUT_MESSAGES,
  ATTR_OPENINFERENCE_OUTPUT_VALUE,
  ATTR_OPENINFERENCE_SESSION_ID,
  ATTR_OPENINFERENCE_SPAN_KIND,
  ATTR_OPENINFERENCE_TOOL_NAME,
  OPENINFERENCE_SPAN_KIND_LLM,
  OPENINFERENCE_SPAN_KIND_TOOL,
} from '../../semconv.js';
import { parseJsonAttribute } from '../json-attribute.js';
import { runIdOf } from '../run-id.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringValue } from './attribute-values.js';
import { serialisedMessageKwargs } from './langchain-message.js';
import { readOpenInferenceChat } from './openinference-chat.js';
import { isRecord } from '../../util/is-record.js';

function isKind(span: SpanView, wanted: string): boolean {
  const kind = span.attributes[ATTR_OPENINFERENCE_SPAN_KIND];
  return typeof kind === 'string' && kind.toUpperCase() === wanted;
}

function isToolSpan(span: SpanView): boolean {
  return isKind(span, OPENINFERENCE_SPAN_KIND_TOOL);
}

function match(span: SpanView): ToolCallStart | undefined {
  if (!isToolSpan(span)) return undefined;
  // The LangChain tracer sets `tool.name` only at end; its span name is the tool's run name.
  const toolName = stringValue(span.attributes[ATTR_OPENINFERENCE_TOOL_NAME]) ?? (span.name.trim() || undefined);
  if (toolName === undefined) return undefined;
  return { toolName, arguments: span.attributes[ATTR_OPENINFERENCE_INPUT_VALUE] };
}

/**
 * `output.value` as a result. The LangChain tracer writes a tool run's outputs `{output: X}`:
 * a lone string X as itself, anything else as JSON of the whole object; a `ToolMessage` X is
 * serialised in LangChain's constructor form, whose `kwargs` carry the per-call
 * `tool_call_id`. Unwrapped here to X, and a serialised message to its `kwargs.content`, so
 * that identical tool results hash alike.
 */
function unwrapOutput(value: unknown): unknown {
  let parsed = parseJsonAttribute(value);
  if (isRecord(parsed) && Object.keys(parsed).length === 1 && 'output' in parsed) parsed = parsed.output;
  const message = serialisedMessageKwargs(parsed);
  return message && 'content' in message ? message.content : parsed;
}

/**
 * OpenInference (Arize Phoenix) spans: `openinference.span.kind` = `TOOL`, `tool.name`,
 * `input.value` / `output.value`, `session.id`.
 *
 * The LangChain instrumentation starts a tool span with only its kind (the span name is the
 * tool name) and sets `tool.name`, `input.value`, `output.value` as the span ends, so such
 * calls are judged at end (detect, annotate, abort — not block). When `input.value` is already
 * there at start the call is judged at start. Spans whose kind arrives only at end are matched
 * at end. Run scope: `session.id` (OpenInference's `setSession` context attribute) on
 * OpenInference spans; otherwise the trace.
 *
 * `LLM` spans (the client instrumentations, such as `@arizeai/openinference-instrumentation-openai`)
 * are read as they end for the tool calls in their flattened messages (see
 * {@link readOpenInferenceChat}). `redactContent` removes every
 * `llm.input_messages.*` / `llm.output_messages.*` attribute too.
 */
export const openInferenceAdapter: ToolSpanAdapter = {
  name: 'openinference',
  contentAttributes: [ATTR_OPENINFERENCE_INPUT_VALUE, ATTR_OPENINFERENCE_OUTPUT_VALUE],
  contentAttributePrefixes: [`${ATTR_OPENINFERENCE_INPUT_MESSAGES}.`, `${ATTR_OPENINFERENCE_OUTPUT_MESSAGES}.`],
  triggers: { attributes: [ATTR_OPENINFERENCE_SPAN_KIND] },
  matchStart: match,
  matchEnd: match,
  matchChat: (span) => isKind(span, OPENINFERENCE_SPAN_KIND_LLM),
  readChat: readOpenInferenceChat,
  readEnd(span) {
    const end = readToolCallEnd(
      span,
      span.attributes[ATTR_OPENINFERENCE_INPUT_VALUE],
      span.attributes[ATTR_OPENINFERENCE_OUTPUT_VALUE],
    );
    return end.hasResult ? { ...end, result: unwrapOutput(end.result) } : end;
  },
  scopeHint(span) {
    if (span.attributes[ATTR_OPENINFERENCE_SPAN_KIND] === undefined) return undefined;
    const runId = runIdOf(span.attributes[ATTR_OPENINFERENCE_SESSION_ID]);
    return runId === undefined ? undefined : { runId };
  },
};
