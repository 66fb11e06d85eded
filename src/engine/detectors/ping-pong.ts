import type { Detector } from './detector.js';

/**
 * OpenClaw's `ping_pong`: the call continues an alternation of two signatures.
 * Critical at `criticalThreshold` when both sides show identical outcomes (no-progress
 * evidence); warning at `warningThreshold` regardless of outcomes. With
 * `pingPongRequiresNoProgress` it needs the same evidence as `generic_repeat`, for its warning
 * too: each side repeated one result, no `write` changed its target between the laps (an edit /
 * run-tests alternation whose results change is work, not a loop), and it is counted as
 * `generic_repeat` counts, by the repeats of each side (twice the thresholds in alternating calls,
 * OpenClaw's critical of 20 for a critical of 10).
 * Gated by `detectors.pingPong`.
 */
export const detectPingPong: Detector = (history, call, config) => {
  if (!config.detectors.pingPong) return undefined;
  const candidate = history.pingPong(call.argsHash);
  const strict = config.pingPongRequiresNoProgress;
  const calls = strict ? 2 : 1;
  if (candidate.count === 0 || candidate.count < calls * config.warningThreshold) return undefined;
  const critical = candidate.count >= calls * config.criticalThreshold;
  const noProgress = (critical || strict) && history.pingPongNoProgressEvidence(candidate, { strict });
  if (strict && !noProgress) return undefined;
  const warningKey = `pingpong:${[call.argsHash, candidate.pairedSignature ?? ''].sort().join('|')}`;
  const base = {
    detector: 'ping_pong',
    count: candidate.count,
    warningKey,
    pairedToolName: candidate.pairedToolName,
    pairedSignature: candidate.pairedSignature,
  } as const;
  if (critical && noProgress) {
    return {
      verdict: {
        ...base,
        level: 'critical',
        message: `CRITICAL: You are alternating between repeated tool-call patterns (${candidate.count} consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.`,
      },
      log: {
        level: 'error',
        message: `Critical ping-pong loop detected: alternating calls count=${candidate.count} currentTool=${call.toolName}`,
      },
    };
  }
  return {
    verdict: {
      ...base,
      level: 'warning',
      message: `WARNING: You are alternating between repeated tool-call patterns (${candidate.count} consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.`,
      ...(strict ? { threshold: calls * config.warningThreshold } : {}),
    },
    log: {
      level: 'warn',
      message: `Ping-pong loop warning: alternating calls count=${candidate.count} currentTool=${call.toolName}`,
    },
  };
};
