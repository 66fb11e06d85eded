import {
  AI_SDK_OPERATION_GENERATE_TEXT,
  AI_SDK_OPERATION_STREAM_TEXT,
  AI_SDK_TOOL_CALL,
  ATTR_AI_OPERATION_ID,
  ATTR_AI_TELEMETRY_FUNCTION_ID,
  ATTR_AI_TELEMETRY_METADATA_RUN_ID,
  ATTR_AI_TOOL_CALL_ARGS,
  ATTR_AI_TOOL_CALL_ID,
  ATTR_AI_TOOL_CALL_NAME,
  ATTR_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_AGENT_ID,
} from '../../semconv.js';
import type { ToolSpanAdapter } from './adapter.js';
import { runIdOf } from '../run-id.js';
import { readToolCallEnd, stringValue, toolCallStartOf } from './attribute-values.js';

/**
 * Vercel AI SDK v5/v6 telemetry (`experimental_telemetry: { isEnabled: true }`).
 *
 * Tool spans are named `ai.toolCall` and carry `ai.toolCall.name`, `ai.toolCall.id` and, when
 * `recordOutputs` is not `false`, `ai.toolCall.args` at start (so they are judged at start) and
 * `ai.toolCall.result` set just before the span ends. A tool that throws ends its span with
 * status ERROR and an `exception` event. Arguments are known before the tool runs, but the SDK
 * runs the tool whatever the verdict: stop the run with `processor.runSignal(runId)` as the
 * call's `abortSignal`.
 *
 * Run scope: `ai.telemetry.metadata.runId` (from `experimental_telemetry.metadata.runId`, copied
 * onto every span of the call), else the enclosing `ai.generateText` / `ai.streamText` span
 * opens an id-less run. Agent id: `gen_ai.agent.id` on the span, else `ai.telemetry.functionId`.
 */
export const aiSdkAdapter: ToolSpanAdapter = {
  name: 'ai-sdk',
  contentAttributes: [ATTR_AI_TOOL_CALL_ARGS, ATTR_AI_TOOL_CALL_RESULT],
  triggers: { attributes: [ATTR_AI_OPERATION_ID], spanNames: [AI_SDK_TOOL_CALL] },
  matchStart(span) {
    if (span.name !== AI_SDK_TOOL_CALL && span.attributes[ATTR_AI_OPERATION_ID] !== AI_SDK_TOOL_CALL) return undefined;
    const toolName = stringValue(span.attributes[ATTR_AI_TOOL_CALL_NAME]);
    if (toolName === undefined) return undefined;
    return toolCallStartOf(
      span,
      toolName,
      span.attributes[ATTR_AI_TOOL_CALL_ID],
      span.attributes[ATTR_AI_TOOL_CALL_ARGS],
    );
  },
  readEnd(span) {
    return readToolCallEnd(span, span.attributes[ATTR_AI_TOOL_CALL_ARGS], span.attributes[ATTR_AI_TOOL_CALL_RESULT]);
  },
  scopeHint(span) {
    const operation = span.attributes[ATTR_AI_OPERATION_ID];
    if (typeof operation !== 'string' || !operation.startsWith('ai.')) return undefined;
    const runId = runIdOf(span.attributes[ATTR_AI_TELEMETRY_METADATA_RUN_ID]);
    const agentId =
      stringValue(span.attributes[ATTR_GEN_AI_AGENT_ID]) ?? stringValue(span.attributes[ATTR_AI_TELEMETRY_FUNCTION_ID]);
    const startsRun = operation === AI_SDK_OPERATION_GENERATE_TEXT || operation === AI_SDK_OPERATION_STREAM_TEXT;
    if (runId === undefined && agentId === undefined && !startsRun) return undefined;
    return { runId, agentId, startsRun };
  },
};
