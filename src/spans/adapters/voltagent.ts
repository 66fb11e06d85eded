import {
  ATTR_VOLTAGENT_AGENT_MESSAGES,
  ATTR_VOLTAGENT_AGENT_MESSAGES_UI,
  ATTR_VOLTAGENT_AGENT_STATE,
  ATTR_VOLTAGENT_CONVERSATION_ID,
  ATTR_VOLTAGENT_ENTITY_ID,
  ATTR_VOLTAGENT_ENTITY_TYPE,
  ATTR_VOLTAGENT_INPUT,
  ATTR_VOLTAGENT_LLM_MESSAGES,
  ATTR_VOLTAGENT_OPERATION_ID,
  ATTR_VOLTAGENT_OUTPUT,
  ATTR_VOLTAGENT_SPAN_TYPE,
  ATTR_VOLTAGENT_SUBAGENT_ID,
  ATTR_VOLTAGENT_TOOL_CALL_ID,
  ATTR_VOLTAGENT_TOOL_NAME,
  VOLTAGENT_ENTITY_TYPE_AGENT,
  VOLTAGENT_SPAN_TYPE_TOOL,
} from '../../semconv.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { runIdOf } from '../run-id.js';
import { readToolCallEnd, stringValue, toolCallStartOf } from './attribute-values.js';

/** A span of a VoltAgent agent operation: its operation id and entity type, both set at start. */
function isAgentOperationSpan(span: SpanView): boolean {
  return (
    typeof span.attributes[ATTR_VOLTAGENT_OPERATION_ID] === 'string' &&
    span.attributes[ATTR_VOLTAGENT_ENTITY_TYPE] !== undefined
  );
}

function match(span: SpanView): ToolCallStart | undefined {
  if (span.attributes[ATTR_VOLTAGENT_SPAN_TYPE] !== VOLTAGENT_SPAN_TYPE_TOOL || !isAgentOperationSpan(span))
    return undefined;
  const toolName = stringValue(span.attributes[ATTR_VOLTAGENT_TOOL_NAME]);
  if (toolName === undefined) return undefined;
  return toolCallStartOf(
    span,
    toolName,
    span.attributes[ATTR_VOLTAGENT_TOOL_CALL_ID],
    span.attributes[ATTR_VOLTAGENT_INPUT],
  );
}

/**
 * VoltAgent's own OTel spans (`@voltagent/core` 2.x). A tool call is a span named
 * `tool.execution:<name>` with `span.type` = `tool`, `tool.name`, `tool.call.id` and `input`
 * (JSON arguments) from its start, so calls are judged **at start** (VoltAgent still runs the
 * tool: stop the run with its signal); `output` (the result) is set as it ends, a failure as
 * status ERROR. Every span of an agent operation carries `operation.id` and `entity.type`, and
 * `conversation.id` when the call was given a `conversationId`.
 *
 * Run scope: `conversation.id` (so `runSignal(conversationId)` aborts the run), else the agent
 * operation's root span (`agent.state` at start) opens an id-less run; each operation's root
 * span starts a new trace, and its end releases the run. Agent id: `subagent.id` on a
 * subagent's spans, else `entity.id`.
 *
 * Content removed by `redactContent` from every span of an agent operation: `input`, `output`,
 * and the messages sent to the model (`llm.messages`, `agent.messages`, `agent.messages.ui`),
 * which hold earlier tool results.
 */
export const voltAgentAdapter: ToolSpanAdapter = {
  name: 'voltagent',
  contentAttributes: [
    ATTR_VOLTAGENT_INPUT,
    ATTR_VOLTAGENT_OUTPUT,
    ATTR_VOLTAGENT_LLM_MESSAGES,
    ATTR_VOLTAGENT_AGENT_MESSAGES,
    ATTR_VOLTAGENT_AGENT_MESSAGES_UI,
  ],
  triggers: { attributes: [ATTR_VOLTAGENT_OPERATION_ID] },
  matchStart: match,
  readEnd(span) {
    return readToolCallEnd(span, span.attributes[ATTR_VOLTAGENT_INPUT], span.attributes[ATTR_VOLTAGENT_OUTPUT]);
  },
  scopeHint(span) {
    if (!isAgentOperationSpan(span)) return undefined;
    const runId = runIdOf(span.attributes[ATTR_VOLTAGENT_CONVERSATION_ID]);
    const agentId =
      stringValue(span.attributes[ATTR_VOLTAGENT_SUBAGENT_ID]) ??
      (span.attributes[ATTR_VOLTAGENT_ENTITY_TYPE] === VOLTAGENT_ENTITY_TYPE_AGENT
        ? stringValue(span.attributes[ATTR_VOLTAGENT_ENTITY_ID])
        : undefined);
    const startsRun = span.attributes[ATTR_VOLTAGENT_AGENT_STATE] !== undefined;
    return runId === undefined && agentId === undefined && !startsRun ? undefined : { runId, agentId, startsRun };
  },
};
