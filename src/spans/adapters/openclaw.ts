import {
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_OPENCLAW_AGENT,
  ATTR_OPENCLAW_CONTENT_TOOL_INPUT,
  ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT,
  ATTR_OPENCLAW_OUTCOME,
  ATTR_OPENCLAW_TOOL_NAME,
  OPENCLAW_OUTCOME_BLOCKED,
  OPENCLAW_SPAN_HARNESS_RUN,
  OPENCLAW_SPAN_RUN,
  OPENCLAW_SPAN_TOOL_EXECUTION,
} from '../../semconv.js';
import type { SpanView } from '../span-view.js';
import type { ToolSpanAdapter } from './adapter.js';
import { firstPresent, readToolCallEnd, stringValue } from './attribute-values.js';

/** The call's arguments: the GenAI attribute, else OpenClaw's content attribute. */
function argumentsOf(span: SpanView): unknown {
  return firstPresent(
    span.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS],
    span.attributes[ATTR_OPENCLAW_CONTENT_TOOL_INPUT],
  );
}

function isVeto(span: SpanView): boolean {
  return (
    span.name === OPENCLAW_SPAN_TOOL_EXECUTION && span.attributes[ATTR_OPENCLAW_OUTCOME] === OPENCLAW_OUTCOME_BLOCKED
  );
}

/**
 * OpenClaw's `diagnostics-otel` spans. `openclaw.tool.execution` carries
 * `openclaw.toolName` / `gen_ai.tool.name` and `gen_ai.tool.call.id` from its start; content
 * (`gen_ai.tool.call.arguments` / `.result`, mirrored as `openclaw.content.tool_input` /
 * `tool_output`) only with `diagnostics.otel.captureContent` and only as the span ends, so
 * calls are judged at end (detect, annotate, abort — not block). A span OpenClaw creates
 * after the fact with its content already set is judged at start.
 *
 * Spans with `openclaw.outcome` = `blocked` are OpenClaw's own vetoes: not calls (OpenClaw
 * does not record them either). Run scope: OpenClaw exports no run id, so the enclosing
 * `openclaw.run` / `openclaw.harness.run` span opens the run; agent id from `openclaw.agent`.
 */
export const openClawAdapter: ToolSpanAdapter = {
  name: 'openclaw',
  contentAttributes: [
    ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
    ATTR_GEN_AI_TOOL_CALL_RESULT,
    ATTR_OPENCLAW_CONTENT_TOOL_INPUT,
    ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT,
  ],
  triggers: {
    attributes: [ATTR_OPENCLAW_AGENT],
    spanNames: [OPENCLAW_SPAN_TOOL_EXECUTION, OPENCLAW_SPAN_RUN, OPENCLAW_SPAN_HARNESS_RUN],
  },
  matchStart(span) {
    // By name: `openclaw.skill.used` and `openclaw.tool.loop` spans also carry `openclaw.toolName`.
    if (span.name !== OPENCLAW_SPAN_TOOL_EXECUTION) return undefined;
    if (isVeto(span)) return undefined;
    const toolName =
      stringValue(span.attributes[ATTR_OPENCLAW_TOOL_NAME]) ?? stringValue(span.attributes[ATTR_GEN_AI_TOOL_NAME]);
    if (toolName === undefined) return undefined;
    return {
      toolName,
      toolCallId: stringValue(span.attributes[ATTR_GEN_AI_TOOL_CALL_ID]),
      arguments: argumentsOf(span),
    };
  },
  // OpenClaw's own veto: not a call, and not one for the generic GenAI adapter either.
  rejects: isVeto,
  readEnd(span) {
    return readToolCallEnd(
      span,
      argumentsOf(span),
      firstPresent(span.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT], span.attributes[ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT]),
    );
  },
  scopeHint(span) {
    const agentId = stringValue(span.attributes[ATTR_OPENCLAW_AGENT]);
    const startsRun = span.name === OPENCLAW_SPAN_RUN || span.name === OPENCLAW_SPAN_HARNESS_RUN;
    return agentId === undefined && !startsRun ? undefined : { agentId, startsRun };
  },
};
