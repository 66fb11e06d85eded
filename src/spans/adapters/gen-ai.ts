import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_TOOL_LOOP_RUN_ID,
} from '../../semconv.js';
import type { ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringAttribute, toolCallStartOf } from './attribute-values.js';

const CONTENT_KEYS = { arguments: [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS], result: [ATTR_GEN_AI_TOOL_CALL_RESULT] } as const;

/**
 * The native convention: OTel GenAI `execute_tool` spans — any span with a
 * `gen_ai.tool.name` — plus our `tool_loop.*` attributes. Also what AI SDK v7's
 * `@ai-sdk/otel` and OpenClaw's `openclaw.tool.execution` spans carry.
 */
export const genAiAdapter: ToolSpanAdapter = {
  name: 'gen-ai',
  contentAttributes: [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT],
  triggers: { attributes: [ATTR_GEN_AI_TOOL_NAME, ATTR_TOOL_LOOP_RUN_ID, ATTR_GEN_AI_AGENT_ID] },
  matchStart(span) {
    const toolName = stringAttribute(span, ATTR_GEN_AI_TOOL_NAME);
    if (toolName === undefined) return undefined;
    return toolCallStartOf(span, toolName, {
      callId: ATTR_GEN_AI_TOOL_CALL_ID,
      arguments: ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
    });
  },
  readEnd(span) {
    // `gen_ai.tool.call.arguments` is opt-in content: without it, calls cannot be told apart.
    return readToolCallEnd(span, CONTENT_KEYS);
  },
  scopeHint(span) {
    const runId = stringAttribute(span, ATTR_TOOL_LOOP_RUN_ID);
    const agentId = stringAttribute(span, ATTR_GEN_AI_AGENT_ID);
    return runId === undefined && agentId === undefined ? undefined : { runId, agentId };
  },
};
