import type { Detector } from './detector.js';

/**
 * OpenClaw's `ping_pong`: the call continues an alternation of two signatures.
 * Critical at `criticalThreshold` when both sides show identical outcomes (no-progress
 * evidence); warning at `warningThreshold` regardless of outcomes — or, with
 * `pingPongRequiresNoProgress`, only with that evidence, each side having repeated its result
 * and a `write` that changed its target counting as progress (an edit / run-tests alternation
 * whose results change is work, not a loop).
 * Gated by `detectors.pingPong`.
 */
export const detectPingPong: Detector = (history, call, config) => {
  if (!config.detectors.pingPong) return undefined;
  const candidate = history.pingPong(call.argsHash);
  if (candidate.count === 0 || candidate.count < config.warningThreshold) return undefined;
  const strict = config.pingPongRequiresNoProgress;
  const critical = candidate.count >= config.criticalThreshold;
  const noProgress = (critical || strict) && history.pingPongNoProgressEvidence(candidate, strict);
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
    },
    log: {
      level: 'warn',
      message: `Ping-pong loop warning: alternating calls count=${candidate.count} currentTool=${call.toolName}`,
    },
  };
};
