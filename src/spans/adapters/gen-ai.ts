import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_TOOL_LOOP_RUN_ID,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_OPERATION_GENERATE_CONTENT,
  GEN_AI_OPERATION_INVOKE_AGENT,
  GEN_AI_OPERATION_TEXT_COMPLETION,
} from '../../semconv.js';
import { runIdOf } from '../run-id.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringValue, toolCallStartOf } from './attribute-values.js';
import { readGenAiChat } from './gen-ai-chat.js';

function match(span: SpanView): ToolCallStart | undefined {
  const toolName = stringValue(span.attributes[ATTR_GEN_AI_TOOL_NAME]);
  if (toolName === undefined) return undefined;
  return toolCallStartOf(
    span,
    toolName,
    span.attributes[ATTR_GEN_AI_TOOL_CALL_ID],
    span.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS],
  );
}

/**
 * The native convention: OTel GenAI `execute_tool` spans — any span with a
 * `gen_ai.tool.name` — plus our `tool_loop.*` attributes. Also what AI SDK v7's
 * `@ai-sdk/otel`, Mastra's `@mastra/otel-bridge` and OpenClaw's `openclaw.tool.execution`
 * spans carry.
 *
 * A span with its tool name at start is judged then (before the tool runs) when its arguments
 * are there too; Mastra's bridge starts its tool spans bare (`tool: '<name>'`) and sets every
 * GenAI attribute as they end, so such spans are matched and judged at end (detect, annotate,
 * abort — not block).
 *
 * Run scope, after the GenAI agent conventions: `tool_loop.run_id`, else
 * `gen_ai.conversation.id` (a session), on the span or an ancestor; an `invoke_agent` span
 * without either opens an id-less run; agent id from `gen_ai.agent.id`. A conversation's run is
 * opened (and released at its end) only by an `invoke_agent` span carrying its id: a model or
 * tool call carrying it joins the run, so a loop whose calls are each a trace of their own keeps
 * one history.
 *
 * Model-call spans (`gen_ai.operation.name` = `chat`, `text_completion` or `generate_content`)
 * are read as they end for the tool calls in their messages (see {@link readGenAiChat}): what an
 * agent instrumented only at its LLM client (OpenLLMetry's JS instrumentations from 0.25, AI SDK
 * v7's `@ai-sdk/otel`) shows of its calls. `redactContent` removes both message lists.
 */
export const genAiAdapter: ToolSpanAdapter = {
  name: 'gen-ai',
  contentAttributes: [
    ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
    ATTR_GEN_AI_TOOL_CALL_RESULT,
    ATTR_GEN_AI_INPUT_MESSAGES,
    ATTR_GEN_AI_OUTPUT_MESSAGES,
  ],
  triggers: {
    attributes: [
      ATTR_GEN_AI_TOOL_NAME,
      ATTR_TOOL_LOOP_RUN_ID,
      ATTR_GEN_AI_AGENT_ID,
      ATTR_GEN_AI_CONVERSATION_ID,
      ATTR_GEN_AI_OPERATION_NAME,
    ],
  },
  matchStart: match,
  matchEnd: match,
  matchChat(span) {
    const operation = span.attributes[ATTR_GEN_AI_OPERATION_NAME];
    return (
      operation === GEN_AI_OPERATION_CHAT ||
      operation === GEN_AI_OPERATION_TEXT_COMPLETION ||
      operation === GEN_AI_OPERATION_GENERATE_CONTENT
    );
  },
  readChat: readGenAiChat,
  readEnd(span) {
    // `gen_ai.tool.call.arguments` is opt-in content: without it, calls cannot be told apart.
    return readToolCallEnd(
      span,
      span.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS],
      span.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT],
    );
  },
  scopeHint(span) {
    const ownRunId = runIdOf(span.attributes[ATTR_TOOL_LOOP_RUN_ID]);
    const runId = ownRunId ?? runIdOf(span.attributes[ATTR_GEN_AI_CONVERSATION_ID]);
    const agentId = stringValue(span.attributes[ATTR_GEN_AI_AGENT_ID]);
    const startsRun = span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_INVOKE_AGENT;
    if (runId === undefined && agentId === undefined && !startsRun) return undefined;
    // A conversation outlives its model calls: only an agent invocation bounds its run.
    return ownRunId === undefined && runId !== undefined && !startsRun
      ? { runId, agentId, startsRun, joinsOnly: true }
      : { runId, agentId, startsRun };
  },
};
