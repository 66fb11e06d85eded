import type { Detector } from './detector.js';
import { isPollCall } from './no-progress-streak.js';

/**
 * Opt-in `similar_outcome` (critical), gated by `detectors.similarOutcome`: the tool's newest
 * `similarOutcomeThreshold` calls in a row failed with the same explained error, word for word,
 * even as the arguments changed — the tool rejects whatever the agent varies (AutoCodeRover's
 * "The search API calls seem not valid" feedback). Successes never count: alike results across
 * different arguments are quiet progress (a status lookup answering `available` for several
 * flights, silent shell commands).
 */
export const detectSimilarOutcome: Detector = (history, call, config) => {
  if (!config.detectors.similarOutcome || isPollCall(call, config)) return undefined;
  const similar = history.similarOutcomes(call.toolName);
  if (similar.count < config.similarOutcomeThreshold) return undefined;
  const across = similar.signatures.length > 1 || similar.signatures[0] !== call.argsHash;
  return {
    verdict: {
      level: 'critical',
      detector: 'similar_outcome',
      count: similar.count,
      message: `CRITICAL: ${call.toolName} failed with the same error ${similar.count} times in a row${across ? ' even as the arguments changed' : ''}. Session execution blocked to prevent resource waste. Stop retrying this tool: reassess the task.`,
      warningKey: `similar:${call.toolName}`,
      loopSignatures: similar.signatures,
    },
    log: {
      level: 'error',
      message: `Critical similar outcomes detected: ${call.toolName} failed with the same error ${similar.count} times`,
    },
  };
};
