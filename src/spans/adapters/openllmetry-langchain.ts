import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_TRACELOOP_ENTITY_INPUT,
  ATTR_TRACELOOP_ENTITY_NAME,
  ATTR_TRACELOOP_ENTITY_OUTPUT,
  ATTR_TRACELOOP_SPAN_KIND,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  TRACELOOP_SPAN_KIND_TASK,
} from '../../semconv.js';
import { isRecord } from '../../util/is-record.js';
import { parseJsonAttribute } from '../json-attribute.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringValue } from './attribute-values.js';
import { serialisedMessageKwargs } from './langchain-message.js';

/** The tool's arguments inside `{"args":[<arguments as JSON text>]}`; anything else as it is. */
function unwrapInput(value: unknown): unknown {
  const parsed = parseJsonAttribute(value);
  if (!isRecord(parsed) || !Array.isArray(parsed.args) || parsed.args.length !== 1) return parsed;
  return parseJsonAttribute(parsed.args[0]);
}

function isToolTask(span: SpanView): boolean {
  return (
    span.attributes[ATTR_TRACELOOP_SPAN_KIND] === TRACELOOP_SPAN_KIND_TASK &&
    span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_EXECUTE_TOOL
  );
}

function match(span: SpanView): ToolCallStart | undefined {
  if (!isToolTask(span)) return undefined;
  // The entity name is the tool's class (`DynamicStructuredTool`); its name is in the returned message.
  const message = serialisedMessageKwargs(parseJsonAttribute(span.attributes[ATTR_TRACELOOP_ENTITY_OUTPUT]));
  const named = typeof message?.name === 'string' ? message.name.trim() : '';
  const toolName = named !== '' ? named : stringValue(span.attributes[ATTR_TRACELOOP_ENTITY_NAME]);
  if (toolName === undefined) return undefined;
  const callId = typeof message?.tool_call_id === 'string' ? message.tool_call_id : undefined;
  return { toolName, toolCallId: callId, arguments: unwrapInput(span.attributes[ATTR_TRACELOOP_ENTITY_INPUT]) };
}

/**
 * OpenLLMetry's LangChain instrumentation (`@traceloop/instrumentation-langchain`): a tool run
 * is a task span `execute_tool <ToolClass>` with `traceloop.span.kind` = `task`,
 * `gen_ai.operation.name` = `execute_tool`, `traceloop.entity.input` =
 * `{"args":["<arguments as JSON>"]}` and `traceloop.entity.output` = the serialised
 * `ToolMessage`, whose `kwargs` hold the tool's name, its result (`content`) and the per-call
 * `tool_call_id` (kept out of the hashes). No `gen_ai.tool.*` attribute.
 *
 * Everything is set after the span starts, so calls are matched and judged at end (detect,
 * annotate, abort — not block). Run scope: every span is parented to the active OTel span, so
 * without one each tool span is its own trace; run the agent inside `traceRun`.
 */
export const openLlmetryLangChainAdapter: ToolSpanAdapter = {
  name: 'openllmetry-langchain',
  contentAttributes: [ATTR_TRACELOOP_ENTITY_INPUT, ATTR_TRACELOOP_ENTITY_OUTPUT],
  triggers: { attributes: [ATTR_TRACELOOP_SPAN_KIND] },
  matchStart: match,
  matchEnd: match,
  readEnd(span) {
    const end = readToolCallEnd(
      span,
      span.attributes[ATTR_TRACELOOP_ENTITY_INPUT],
      span.attributes[ATTR_TRACELOOP_ENTITY_OUTPUT],
    );
    const withArguments = end.arguments === undefined ? end : { ...end, arguments: unwrapInput(end.arguments) };
    if (!end.hasResult) return withArguments;
    const message = serialisedMessageKwargs(parseJsonAttribute(end.result));
    return message && 'content' in message ? { ...withArguments, result: message.content } : withArguments;
  },
};
