import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { ToolCallSignature } from '../types.js';

/** The call's failure family (see `typedErrorFamily`); `exec` has none. */
function familyOf(call: ToolCallSignature): string | undefined {
  if (call.toolName === 'exec') return undefined;
  return call.failureFamily ?? call.toolName;
}

function typedErrorFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: 'warning' | 'critical',
): DetectorFinding | undefined {
  if (!config.detectors.typedErrorRepeat) return undefined;
  const family = familyOf(call);
  if (family === undefined) return undefined;
  const repeat = history.typedErrorRepeat(family);
  const threshold = level === 'critical' ? config.typedErrorCriticalThreshold : config.typedErrorWarningThreshold;
  if (repeat.count < threshold) return undefined;
  const code = repeat.code ?? 'unknown';
  const tool = call.toolName;
  const n = repeat.count;
  const remedy =
    'record the outcome, park or roll back the affected target, and end the turn with a final summary of what remains blocked.';
  const message =
    level === 'critical'
      ? `CRITICAL: ${tool} failed ${n} times in this run with the same typed error (${code}) even as the arguments changed. Session execution blocked to prevent resource waste. Do not retry this call again: ${remedy}`
      : `WARNING: ${tool} has failed ${n} times in this run with the same typed error (${code}) even as the arguments changed. A typed failure earns at most one retry and that retry is spent. Stop retrying: ${remedy}`;
  return {
    verdict: {
      level,
      detector: 'typed_error_repeat',
      count: n,
      message,
      warningKey: `typed-error:${tool}:${code}`,
      loopSignatures: history.typedErrorArgsHashes(family),
    },
    log: {
      level: level === 'critical' ? 'error' : 'warn',
      message: `Typed error repeat ${level}: ${tool} failed ${n} times with ${code}`,
    },
  };
}

/**
 * OpenClaw's typed-error identity, critical level: the call's failure family (its tool, or
 * `tool_call:<inner id>`) failed `typedErrorCriticalThreshold` times in the run with the newest
 * stamped `typed_code`, across arguments and interleaved successes. Gated by `detectors.typedErrorRepeat`.
 */
export const detectTypedErrorRepeatCritical: Detector = (history, call, config) =>
  typedErrorFinding(history, call, config, 'critical');

/** The typed-error identity's warning level, at `typedErrorWarningThreshold` (see {@link detectTypedErrorRepeatCritical}). */
export const detectTypedErrorRepeatWarning: Detector = (history, call, config) =>
  typedErrorFinding(history, call, config, 'warning');
