import type { Attributes } from '@opentelemetry/api';
import * as sc from '../semconv.js';

/** Operations whose spans may sum their children's usage: counting them too would count tokens twice. */
const NOT_MODEL_CALLS: ReadonlySet<unknown> = new Set([
  sc.GEN_AI_OPERATION_INVOKE_AGENT,
  sc.GEN_AI_OPERATION_EXECUTE_TOOL,
  sc.GEN_AI_OPERATION_RUN_GUARDRAIL,
  'invoke_workflow',
  'create_agent',
]);

/**
 * The tokens a model call's span reports (`gen_ai.usage.input_tokens` + `output_tokens`; input
 * includes cached input under the GenAI conventions); 0 for a span without usage, for agent,
 * workflow and tool spans, and for values that are not non-negative finite numbers.
 */
export function modelCallTokens(attributes: Attributes): number {
  const input = attributes[sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS];
  const output = attributes[sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS];
  if (input === undefined && output === undefined) return 0;
  if (NOT_MODEL_CALLS.has(attributes[sc.ATTR_GEN_AI_OPERATION_NAME])) return 0;
  return tokenCount(input) + tokenCount(output);
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
