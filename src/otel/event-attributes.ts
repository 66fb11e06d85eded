import type { Attributes } from '@opentelemetry/api';
import * as sc from '../semconv.js';

/** What every loop event says: the labels dashboards, alert rules and Jaeger searches read. */
export interface LoopEventFields {
  readonly detector: string;
  readonly level: string;
  readonly action: string;
  readonly count: number;
  readonly message: string;
  readonly runId: string;
  /** `''` for events that concern no tool (guard armed). */
  readonly toolName: string;
  readonly agentId?: string;
}

/**
 * The attributes of a loop span event: the fields every event carries, `gen_ai.agent.id` when
 * known, then the event's own extras. Labels live on each event because the collector's count
 * connector and Jaeger's tag search read event attributes only.
 */
export function loopEventAttributes(fields: LoopEventFields, extra?: Attributes): Attributes {
  const attributes: Attributes = {
    [sc.ATTR_TOOL_LOOP_DETECTOR]: fields.detector,
    [sc.ATTR_TOOL_LOOP_LEVEL]: fields.level,
    [sc.ATTR_TOOL_LOOP_ACTION]: fields.action,
    [sc.ATTR_TOOL_LOOP_COUNT]: fields.count,
    [sc.ATTR_TOOL_LOOP_MESSAGE]: fields.message,
    [sc.ATTR_TOOL_LOOP_RUN_ID]: fields.runId,
    [sc.ATTR_GEN_AI_TOOL_NAME]: fields.toolName,
  };
  if (fields.agentId !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_ID] = fields.agentId;
  return extra ? Object.assign(attributes, extra) : attributes;
}

/** The labels of the `tool_loop.events` counter for one loop event (few values each: no message, no run id). */
export function loopEventLabels(fields: LoopEventFields): Attributes {
  const labels: Attributes = {
    [sc.ATTR_TOOL_LOOP_ACTION]: fields.action,
    [sc.ATTR_TOOL_LOOP_DETECTOR]: fields.detector,
    [sc.ATTR_TOOL_LOOP_LEVEL]: fields.level,
    [sc.ATTR_GEN_AI_TOOL_NAME]: fields.toolName,
  };
  if (fields.agentId !== undefined) labels[sc.ATTR_GEN_AI_AGENT_ID] = fields.agentId;
  return labels;
}
