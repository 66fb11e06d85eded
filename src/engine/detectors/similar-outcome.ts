import type { Detector } from './detector.js';
import { isPollCall } from './no-progress-streak.js';

/**
 * Opt-in `similar_outcome` (critical), gated by `detectors.similarOutcome`: the tool's newest
 * `similarOutcomeThreshold` outcomes in a row are near-duplicates of one another — equal, or
 * estimated at least `similarityPercent` % similar (word shingles, numbers masked), or equal once
 * the fields learned as volatile are masked — across changing arguments. The mask used is the
 * verdict's `maskedFields`.
 */
export const detectSimilarOutcome: Detector = (history, call, config) => {
  if (!config.detectors.similarOutcome || isPollCall(call, config)) return undefined;
  const similar = history.similarOutcomes(call.toolName, config.similarityPercent, config.volatileFieldObservations);
  if (similar.count < config.similarOutcomeThreshold) return undefined;
  const across = similar.signatures.length > 1 || similar.signatures[0] !== call.argsHash;
  const masked =
    similar.maskedFields.length > 0 ? ` (volatile fields ignored: ${similar.maskedFields.join(', ')})` : '';
  return {
    verdict: {
      level: 'critical',
      detector: 'similar_outcome',
      count: similar.count,
      message: `CRITICAL: ${call.toolName} returned near-identical results ${similar.count} times in a row${across ? ' even as the arguments changed' : ''}${masked}. Session execution blocked to prevent resource waste. Stop retrying this tool: reassess the task.`,
      warningKey: `similar:${call.toolName}`,
      loopSignatures: similar.signatures,
      ...(similar.maskedFields.length > 0 ? { maskedFields: similar.maskedFields } : {}),
    },
    log: {
      level: 'error',
      message: `Critical similar outcomes detected: ${call.toolName} returned near-identical results ${similar.count} times`,
    },
  };
};
