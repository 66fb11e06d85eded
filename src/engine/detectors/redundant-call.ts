import type { Detector } from './detector.js';
import { isPollCall } from './no-progress-streak.js';

/**
 * Opt-in `redundant_call` (critical), gated by `detectors.redundantCall`: the call asks again for
 * an answer the run already has (its signature has an outcome in the history, and no call since
 * made progress that could have changed it), and
 * `redundantCallBudget` calls of the history already did so and got the same outcome again (or
 * were blocked). It counts across signatures, so a run that rereads one file, resends an edit
 * that was rejected and reruns a search — each too few times for a per-call threshold — is still
 * caught. Known polls are exempt, as callers and in the count: asking again is what they are for.
 */
export const detectRedundantCall: Detector = (history, call, config) => {
  if (!config.detectors.redundantCall || isPollCall(call, config)) return undefined;
  // A call never made in this history has no answer to repeat (most calls): the count of its
  // signature, which the detectors before this one looked up for the same call, decides it.
  if (history.recentCount(call.argsHash, call.toolName) === 0) return undefined;
  const redundant = history.redundantCalls(call.argsHash, call.toolName);
  if (!redundant.answerIsCurrent || redundant.count < config.redundantCallBudget) return undefined;
  const count = redundant.count;
  return {
    verdict: {
      level: 'critical',
      detector: 'redundant_call',
      count,
      message: `CRITICAL: ${count} recent calls repeated an earlier call and got the same result again, and this call of ${call.toolName} asks again for a result the run already has (budget ${config.redundantCallBudget}). Session execution blocked: use the results already returned, or try something new.`,
      warningKey: `redundant:${call.toolName}:${call.argsHash}`,
      loopSignatures: redundant.signatures.includes(call.argsHash)
        ? redundant.signatures
        : [...redundant.signatures, call.argsHash],
    },
    log: {
      level: 'error',
      message: `Redundant call budget spent: ${count} repeated calls, ${call.toolName} asking again`,
    },
  };
};
