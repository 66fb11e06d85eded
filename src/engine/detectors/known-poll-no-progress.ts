import type { Detector } from './detector.js';
import { isPollCall, noProgressStreakOf } from './no-progress-streak.js';

/**
 * OpenClaw's `known_poll_no_progress`: a known poll (`command_status`, `process`
 * poll/log, `wait`) returned the same outcome `criticalThreshold` (critical) or
 * `warningThreshold` (warning) times. A `wait` is critical already at
 * `waitCriticalThreshold` (OpenClaw: a wait only resumes existing work, so ten unchanged
 * outcomes prove a stuck poll). Gated by `detectors.knownPollNoProgress`.
 */
export const detectKnownPollNoProgress: Detector = (history, call, config) => {
  if (!isPollCall(call, config) || !config.detectors.knownPollNoProgress) return undefined;
  const streak = noProgressStreakOf(history, call, config);
  const warningKey = `poll:${call.toolName}:${call.argsHash}:${streak.latestResultHash ?? 'none'}`;
  const critical = call.toolName === 'wait' ? config.waitCriticalThreshold : config.criticalThreshold;
  if (streak.count >= critical) {
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
