import type { Detector } from './detector.js';
import { noProgressStreakOf } from './no-progress-streak.js';

/**
 * OpenClaw's `global_circuit_breaker`: identical no-progress outcomes reached
 * `globalCircuitBreakerThreshold` (loop vetoes included once anchored; for `exec`, terminal
 * failures across changing arguments too). Not gated by the detector toggles.
 */
export const detectGlobalCircuitBreaker: Detector = (history, call, config) => {
  const streak = noProgressStreakOf(history, call, config);
  if (streak.count < config.globalCircuitBreakerThreshold) return undefined;
  return {
    verdict: {
      level: 'critical',
      detector: 'global_circuit_breaker',
      count: streak.count,
      message: `CRITICAL: ${call.toolName} has repeated identical no-progress outcomes ${streak.count} times. Session execution blocked by global circuit breaker to prevent runaway loops.`,
      warningKey: `global:${call.toolName}:${call.argsHash}:${streak.latestResultHash ?? 'none'}`,
      // An exec failure streak spans arguments: its members are the streak's records, not one signature.
      ...(streak.acrossArguments ? { loopSignatures: history.newestArgsHashes(streak.count) } : {}),
    },
    log: {
      level: 'error',
      message: `Global circuit breaker triggered: ${call.toolName} repeated ${streak.count} times with no progress`,
    },
  };
};
