import type { Detector } from './detector.js';

/**
 * OpenClaw's `generic_repeat`, for calls that are not known polls: critical when
 * identical arguments produced identical outcomes `criticalThreshold` times; warning when
 * the same arguments were used `warningThreshold` times, whatever the outcomes. Gated by
 * `detectors.genericRepeat`.
 */
export const detectGenericRepeat: Detector = (history, call, config) => {
  if (call.knownPoll || !config.detectors.genericRepeat) return undefined;
  const streak = history.noProgressStreak(call.argsHash, call.toolName);
  if (streak.count >= config.criticalThreshold) {
    return {
      verdict: {
        level: 'critical',
        detector: 'generic_repeat',
        count: streak.count,
        message: `CRITICAL: Called ${call.toolName} with identical arguments and identical outcomes ${streak.count} times. Session execution blocked to prevent runaway loops.`,
        warningKey: `generic:${call.toolName}:${call.argsHash}:${streak.latestResultHash ?? 'none'}`,
      },
      log: {
        level: 'error',
        message: `Critical generic loop detected: ${call.toolName} repeated ${streak.count} times`,
      },
    };
  }
  const recent = history.recentCount(call.argsHash, call.toolName);
  if (recent >= config.warningThreshold) {
    return {
      verdict: {
        level: 'warning',
        detector: 'generic_repeat',
        count: recent,
        message: `WARNING: You have called ${call.toolName} ${recent} times with identical arguments. If this is not making progress, stop retrying and report the task as failed.`,
        warningKey: `generic:${call.toolName}:${call.argsHash}`,
      },
      log: { level: 'warn', message: `Loop warning: ${call.toolName} called ${recent} times with identical arguments` },
    };
  }
  return undefined;
};
