import type { LoopDetectorName } from '../engine/types.js';
import type { CriticalStage } from './run-recovery.js';

/** OpenClaw's intervention record, in the `details` of a result `traceToolCall` returned instead of running the tool. */
export interface ToolLoopIntervention {
  readonly kind: 'critical-tool-loop';
  /** `recovery`: the run's first critical (one recovery turn); `terminate`: the critical that ends the run. */
  readonly stage: CriticalStage;
  readonly toolName: string;
  /** The call that tripped the detector (for a sibling: the other call). */
  readonly toolCallId?: string;
  readonly detector: LoopDetectorName;
  readonly count: number;
  /** The detector's message. */
  readonly reason: string;
}

/**
 * The result of a call `traceToolCall` did not run because of a critical loop, in OpenClaw's
 * shape: the text for the model, `details` with `status: 'blocked'`, `deniedReason: 'tool-loop'`,
 * the detector's `reason` and the `intervention`, `isError` and `executionStarted: false`;
 * `terminate: true` when the run is being ended. Its outcome is a loop veto. (A type alias, not
 * an interface, so that it is assignable to result types with an index signature, such as MCP's
 * `CallToolResult`.)
 */
export type ToolLoopBlockedResult = {
  content: Array<{ type: 'text'; text: string }>;
  details: { status: 'blocked'; deniedReason: 'tool-loop'; reason: string; intervention: ToolLoopIntervention };
  isError: true;
  executionStarted: false;
  terminate?: true;
};

/** OpenClaw's texts for the call that tripped a critical and for the siblings of its batch. */
function interventionText(intervention: ToolLoopIntervention, trigger: boolean): string {
  if (intervention.stage === 'recovery') {
    return trigger
      ? `${intervention.reason}\n\nDo not repeat this exact tool action. Reassess the task. You may answer the user, ask for clarification, or continue with a different tool or different arguments.`
      : 'This tool was not executed because another call in the batch triggered critical tool-loop recovery. Reassess the task before choosing the next action.';
  }
  return trigger
    ? `${intervention.reason}\n\nCritical tool-loop recovery failed because another critical loop was detected. This run is stopping now.`
    : 'This tool was not executed because another call in the batch repeated a critical tool loop. This run is stopping now.';
}

/** The result for the call that tripped the critical (`trigger`) or for a sibling that was not run. */
export function toolLoopBlockedResult(intervention: ToolLoopIntervention, trigger: boolean): ToolLoopBlockedResult {
  const result: ToolLoopBlockedResult = {
    content: [{ type: 'text', text: interventionText(intervention, trigger) }],
    details: { status: 'blocked', deniedReason: 'tool-loop', reason: intervention.reason, intervention },
    isError: true,
    executionStarted: false,
  };
  if (intervention.stage === 'terminate') result.terminate = true;
  return result;
}

/**
 * A result with OpenClaw's system note appended: an OpenClaw-shaped result (a `content` array)
 * gets one more text item, a string gets the note after a blank line; any other value is
 * returned as it is (the tool body received the note as `systemNote` to place it itself).
 */
export function appendSystemNote<R>(result: R, note: string): R {
  if (typeof result === 'string') return `${result}\n\n${note}` as R;
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    const { content } = result as { content?: unknown };
    if (Array.isArray(content))
      return { ...result, content: [...(content as unknown[]), { type: 'text', text: note }] };
  }
  return result;
}
