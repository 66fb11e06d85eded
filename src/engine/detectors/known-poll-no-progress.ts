import type { Detector } from './detector.js';

/**
 * OpenClaw's `known_poll_no_progress`: a known poll (`command_status`, `process`
 * poll/log) returned the same outcome `criticalThreshold` (critical) or `warningThreshold`
 * (warning) times. Gated by `detectors.knownPollNoProgress`.
 */
export const detectKnownPollNoProgress: Detector = (history, call, config) => {
  if (!call.knownPoll || !config.detectors.knownPollNoProgress) return undefined;
  const streak = history.noProgressStreak(call.argsHash, call.toolName);
  const warningKey = `poll:${call.toolName}:${call.argsHash}:${streak.latestResultHash ?? 'none'}`;
  if (streak.count >= config.criticalThreshold) {
    return {
      verdict: {
        level: 'critical',
        detector: 'known_poll_no_progress',
        count: streak.count,
        message: `CRITICAL: Called ${call.toolName} with identical arguments and no progress ${streak.count} times. This appears to be a stuck polling loop. Session execution blocked to prevent resource waste.`,
        warningKey,
      },
      log: {
        level: 'error',
        message: `Critical polling loop detected: ${call.toolName} repeated ${streak.count} times`,
      },
    };
  }
  if (streak.count >= config.warningThreshold) {
    return {
      verdict: {
        level: 'warning',
        detector: 'known_poll_no_progress',
        count: streak.count,
        message: `WARNING: You have called ${call.toolName} ${streak.count} times with identical arguments and no progress. Stop polling and either (1) increase wait time between checks, or (2) report the task as failed if the process is stuck.`,
        warningKey,
      },
      log: { level: 'warn', message: `Polling loop warning: ${call.toolName} repeated ${streak.count} times` },
    };
  }
  return undefined;
};
