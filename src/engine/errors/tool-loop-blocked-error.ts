import type { LoopDetectorName } from '../types.js';

/** The code of {@link ToolLoopBlockedError}. */
export const TOOL_LOOP_BLOCKED_CODE = 'tool_loop_blocked';

/**
 * A tool call was refused (or a run aborted, with `abortOnCritical`) because a detector
 * returned a critical verdict. Carries the detector, count, tool and OpenClaw's message.
 */
export class ToolLoopBlockedError extends Error {
  override readonly name = 'ToolLoopBlockedError';
  readonly code = TOOL_LOOP_BLOCKED_CODE;
  readonly detector: LoopDetectorName;
  readonly count: number;
  readonly toolName: string;

  constructor(message: string, details: { detector: LoopDetectorName; count: number; toolName: string }) {
    super(message);
    this.detector = details.detector;
    this.count = details.count;
    this.toolName = details.toolName;
  }
}
