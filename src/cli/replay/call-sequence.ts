import type { ResolvedLoopDetectionConfig } from '../../config/types.js';
import type { Digester } from '../../engine/hashing/digest.js';
import { genAiAdapter } from '../../spans/adapters/gen-ai.js';
import { trajectoryCallSpan } from '../readers/trajectory.js';
import type { TrajectoryCall } from '../readers/types.js';
import type { RunReplay } from './run-replay.js';
import { prepareSpan, type PreparedToolCall } from './prepared-span.js';

/** A hashed call of a sequential run (one call finishes before the next starts). */
export interface SequencedCall {
  readonly tool: PreparedToolCall;
  readonly step?: number;
}

const TRAJECTORY_ADAPTERS = [genAiAdapter] as const;

/**
 * Hashes a trajectory line once, through the span a native GenAI instrumentation would have
 * produced for it and the gen-ai adapter (see `trajectoryCallSpan`).
 */
export function prepareTrajectoryCall(digester: Digester, call: TrajectoryCall): SequencedCall {
  const prepared = prepareSpan(TRAJECTORY_ADAPTERS, digester, trajectoryCallSpan(call));
  // The gen-ai adapter always recognises a span carrying gen_ai.tool.name.
  return call.step === undefined ? { tool: prepared.tool! } : { tool: prepared.tool!, step: call.step };
}

/**
 * Replays one sequential call: numbered, judged (before it runs when its arguments are known
 * at start), recorded unless blocked, then its outcome recorded and observed by the guard.
 * A blocked call is counted but its outcome is not recorded — live it would not have run —
 * and later calls are replayed as recorded (the agent's actual behaviour).
 */
export function replayCall(run: RunReplay, call: SequencedCall, config: ResolvedLoopDetectionConfig): void {
  const { tool } = call;
  const index = run.nextIndex();
  const handle = run.judge(tool.identity, config, { index, step: call.step, toolCallId: tool.toolCallId, phase: tool.atStart ? 'start' : 'end' });
  run.complete(handle, tool.outcome);
}
