import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  GEN_AI_OPERATION_EXECUTE_TOOL,
} from '../../semconv.js';
import { STATUS_CODE_ERROR, type SpanView } from '../../spans/span-view.js';
import type { TrajectoryCall } from './types.js';
import { isRecord } from '../../util/is-record.js';

/**
 * The neutral trajectory format (`../shared/trajectories/`): each file is one run, each line
 * one tool call `{step, tool, args, result, error?, synthetic?}`.
 */

/** True when a parsed line looks like a trajectory call. */
export function isTrajectoryLine(value: unknown): boolean {
  return isRecord(value) && typeof value.tool === 'string' && ('args' in value || 'result' in value || 'step' in value);
}

/** Validates one parsed line; returns the call or the problem. */
export function decodeTrajectoryLine(value: unknown, line: number): TrajectoryCall | string {
  if (!isRecord(value)) return 'expected a JSON object {step, tool, args, result}';
  if (typeof value.tool !== 'string' || value.tool.trim() === '') return 'missing "tool" (a non-empty string)';
  if (value.step !== undefined && typeof value.step !== 'number') return '"step" must be a number';
  if (value.error !== undefined && typeof value.error !== 'boolean') return '"error" must be a boolean';
  return {
    line,
    ...(typeof value.step === 'number' ? { step: value.step } : {}),
    tool: value.tool.trim(),
    args: value.args,
    ...('result' in value ? { result: value.result } : {}),
    error: value.error === true,
    synthetic: value.synthetic === true,
  };
}

/**
 * The span a trajectory call would have produced with the native GenAI instrumentation:
 * `gen_ai.tool.name`, the arguments as JSON text, the result as its text (parsed as JSON
 * when it is JSON, exactly as the adapter parses live results), and status ERROR with the
 * result text as the message when `error` is true. Replaying this through the gen-ai adapter
 * judges a trajectory line exactly as a live span would be judged.
 */
export function trajectoryCallSpan(call: TrajectoryCall): SpanView {
  const attributes: Record<string, unknown> = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: call.tool,
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(call.args === undefined ? null : call.args),
  };
  const resultText =
    call.result === undefined ? undefined : typeof call.result === 'string' ? call.result : JSON.stringify(call.result);
  if (call.error) {
    return {
      name: `${GEN_AI_OPERATION_EXECUTE_TOOL} ${call.tool}`,
      attributes,
      status: { code: STATUS_CODE_ERROR, message: resultText ?? '' },
    };
  }
  if (resultText !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_RESULT] = resultText;
  return { name: `${GEN_AI_OPERATION_EXECUTE_TOOL} ${call.tool}`, attributes, status: { code: 0 } };
}
