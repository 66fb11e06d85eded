import type { Detector } from './detector.js';

/**
 * OpenClaw's `argument_churn` (warning only; `livenessSignal: 'argument_churn'`), gated by
 * `detectors.argumentChurn`, at `warningThreshold`:
 * - stable churn: the call continues a cycle of at least two argument patterns, each repeated
 *   3+ times with one shared no-progress outcome (errors, unchanged writes);
 * - same-target write churn: a `write` whose target was changed by that many distinct argument
 *   variants in a row, with no verification (any other call) in between.
 */
export const detectArgumentChurn: Detector = (history, call, config) => {
  if (!config.detectors.argumentChurn) return undefined;
  const churn = history.argumentChurn(call.toolName, call.argsHash);
  if (churn.count >= config.warningThreshold) {
    return {
      verdict: {
        level: 'warning',
        detector: 'argument_churn',
        count: churn.count,
        message: `WARNING: ${call.toolName} has cycled through ${churn.variantCount} repeated argument patterns with the same stable outcome ${churn.count} times. Continued churn is treated as stalled run activity, but this tool call remains allowed.`,
        warningKey: `argument-churn:${call.toolName}`,
        livenessSignal: 'argument_churn',
      },
      log: {
        level: 'warn',
        message: `Argument churn warning: ${call.toolName} cycled through stable argument patterns`,
      },
    };
  }
  if (call.toolName !== 'write' || call.mutationTargetHash === undefined) return undefined;
  const writes = history.writeTargetChurn(call.argsHash, call.mutationTargetHash);
  if (writes.count < config.warningThreshold) return undefined;
  return {
    verdict: {
      level: 'warning',
      detector: 'argument_churn',
      count: writes.count,
      message: `WARNING: ${call.toolName} has changed the same target with ${writes.variantCount} distinct argument variants and no intervening verification. Continued rewriting is treated as stalled run activity, but this tool call remains allowed. Read or verify the current result before rewriting it again.`,
      warningKey: `argument-churn:${call.toolName}:write-mutation:${call.mutationTargetHash}`,
      livenessSignal: 'argument_churn',
    },
    log: { level: 'warn', message: `Argument churn warning: ${call.toolName} rewrote one target without verification` },
  };
};
