import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopLevel, ToolCallSignature } from '../types.js';
import { isPollCall } from './no-progress-streak.js';

function redundantCallFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: LoopLevel,
): DetectorFinding | undefined {
  const critical = level === 'critical';
  const budget = critical ? config.redundantCallBudget : config.redundantCallWarningThreshold;
  if (!config.detectors.redundantCall || budget === 0 || isPollCall(call, config)) return undefined;
  // A call never made in this history has no answer to repeat (most calls): the count of its
  // signature, which the detectors before this one looked up for the same call, decides it.
  if (history.recentCount(call.argsHash, call.toolName) === 0) return undefined;
  const redundant = history.redundantCalls(call.argsHash, call.toolName);
  if (!redundant.answerIsCurrent || redundant.count < budget) return undefined;
  const count = redundant.count;
  const tool = call.toolName;
  return {
    verdict: {
      level,
      detector: 'redundant_call',
      count,
      message: critical
        ? `CRITICAL: ${count} recent calls repeated an earlier call and got the same result again, and this call of ${tool} asks again for a result the run already has (budget ${budget}). Session execution blocked: use the results already returned, or try something new.`
        : `WARNING: ${count} recent calls repeated an earlier call and got the same result again, and this call of ${tool} asks again for a result the run already has. Use the results already returned, or try something new.`,
      warningKey: `redundant:${tool}:${call.argsHash}`,
      loopSignatures: redundant.signatures.includes(call.argsHash)
        ? redundant.signatures
        : [...redundant.signatures, call.argsHash],
      ...(critical ? {} : { threshold: budget }),
    },
    log: {
      level: critical ? 'error' : 'warn',
      message: `${critical ? 'Redundant call budget spent' : 'Redundant call warning'}: ${count} repeated calls, ${tool} asking again`,
    },
  };
}

/**
 * Opt-in `redundant_call` (critical), gated by `detectors.redundantCall`: the call asks again for
 * an answer the run already has (its signature has an outcome in the history, and no call since
 * made progress that could have changed it), and `redundantCallBudget` calls since the run last
 * made progress already did so and got the same outcome again (or were blocked). It counts
 * across signatures, so a run that rereads one file, resends an edit that was rejected and
 * reruns a search — each too few times for a per-call threshold — is still caught. Known polls
 * are exempt, as callers and in the count: asking again is what they are for.
 */
export const detectRedundantCall: Detector = (history, call, config) =>
  redundantCallFinding(history, call, config, 'critical');

/** `redundant_call`'s warning step, at `redundantCallWarningThreshold` (see {@link detectRedundantCall}). */
export const detectRedundantCallWarning: Detector = (history, call, config) =>
  redundantCallFinding(history, call, config, 'warning');
