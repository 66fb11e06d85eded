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
import type { SpanView } from '../span-view.js';
import type { ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringAttribute, toolCallStartOf } from './attribute-values.js';

const CONTENT_KEYS = { arguments: [ATTR_AI_TOOL_CALL_ARGS], result: [ATTR_AI_TOOL_CALL_RESULT] } as const;

/** A string or finite-number attribute as text (AI SDK metadata values may be numbers). */
function idAttribute(span: SpanView, key: string): string | undefined {
  const value = span.attributes[key];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return stringAttribute(span, key);
}

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
    const toolName = stringAttribute(span, ATTR_AI_TOOL_CALL_NAME);
    if (toolName === undefined) return undefined;
    return toolCallStartOf(span, toolName, { callId: ATTR_AI_TOOL_CALL_ID, arguments: ATTR_AI_TOOL_CALL_ARGS });
  },
  readEnd(span) {
    return readToolCallEnd(span, CONTENT_KEYS);
  },
  scopeHint(span) {
    const operation = span.attributes[ATTR_AI_OPERATION_ID];
    if (typeof operation !== 'string' || !operation.startsWith('ai.')) return undefined;
    const runId = idAttribute(span, ATTR_AI_TELEMETRY_METADATA_RUN_ID);
    const agentId = stringAttribute(span, ATTR_GEN_AI_AGENT_ID) ?? stringAttribute(span, ATTR_AI_TELEMETRY_FUNCTION_ID);
    const startsRun = operation === AI_SDK_OPERATION_GENERATE_TEXT || operation === AI_SDK_OPERATION_STREAM_TEXT;
    if (runId === undefined && agentId === undefined && !startsRun) return undefined;
    return { runId, agentId, startsRun };
  },
};
