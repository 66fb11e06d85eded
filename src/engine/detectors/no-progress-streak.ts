import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { NoProgressStreak, RunHistory } from '../history/run-history.js';
import type { ToolCallSignature } from '../types.js';

/**
 * The no-progress streak the detectors compare with their thresholds: the call's own
 * (same tool and arguments), and for `exec` the larger of that and the terminal-failure
 * streak across changing arguments (OpenClaw's `max(ordinary, terminal)`; gated by
 * `detectors.execFailureIdentity`).
 */
export function noProgressStreakOf(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
): NoProgressStreak {
  return withExecFailures(history, call, config, history.noProgressStreak(call.argsHash, call.toolName));
}

/**
 * `generic_repeat`'s streak: {@link noProgressStreakOf}, counted back to back with
 * `genericRepeatInARow` (the same call with other calls between its repeats is not counted).
 */
export function repeatStreakOf(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
): NoProgressStreak {
  if (!config.genericRepeatInARow) return noProgressStreakOf(history, call, config);
  return withExecFailures(history, call, config, history.repeatInARow(call.argsHash, call.toolName));
}

function withExecFailures(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  ordinary: NoProgressStreak,
): NoProgressStreak {
  if (call.toolName !== 'exec' || !config.detectors.execFailureIdentity) return ordinary;
  const terminal = history.terminalExecFailureStreak(call.argsHash);
  return terminal.count > ordinary.count ? terminal : ordinary;
}

/** Whether the call is a known poll for the detectors (`wait` only while `detectors.waitPoll` is on). */
export function isPollCall(call: ToolCallSignature, config: ResolvedLoopDetectionConfig): boolean {
  return call.knownPoll && (call.toolName !== 'wait' || config.detectors.waitPoll);
}
