import type { Detector } from './detector.js';
import { isPollCall, repeatStreakOf } from './no-progress-streak.js';

/**
 * `generic_repeat` critical, for calls that are not known polls: identical arguments produced
 * identical outcomes `criticalThreshold` times (loop vetoes included once anchored; for `exec`,
 * one terminal failure across changing arguments counts too; back to back only with
 * `genericRepeatInARow`). Gated by `detectors.genericRepeat`.
 */
export const detectGenericRepeatCritical: Detector = (history, call, config) => {
  if (isPollCall(call, config) || !config.detectors.genericRepeat) return undefined;
  const streak = repeatStreakOf(history, call, config);
  if (streak.count < config.criticalThreshold) return undefined;
  // OpenClaw's newer text for a streak that spans arguments: "identical arguments" would be untrue there.
  const identical = streak.acrossArguments ? 'identical outcomes' : 'identical arguments and identical outcomes';
  return {
    verdict: {
      level: 'critical',
      detector: 'generic_repeat',
      count: streak.count,
      message: `CRITICAL: Called ${call.toolName} with ${identical} ${streak.count} times. Session execution blocked to prevent runaway loops.`,
      warningKey: `generic:${call.toolName}:${call.argsHash}:${streak.latestResultHash ?? 'none'}`,
      // An exec failure streak spans arguments: its members are the streak's records, not one signature.
      ...(streak.acrossArguments ? { loopSignatures: history.newestArgsHashes(streak.count) } : {}),
    },
    log: {
      level: 'error',
      message: `Critical generic loop detected: ${call.toolName} repeated ${streak.count} times`,
    },
  };
};

/**
 * `generic_repeat` warning, for calls that are not known polls: the same arguments were used
 * `warningThreshold` times in the window, whatever the outcomes — or, with
 * `genericRepeatInARow`, the critical's streak reached it (a warning needs the same evidence as
 * the block: rerunning the tests between edits is not a repeat). Gated by `detectors.genericRepeat`.
 */
export const detectGenericRepeatWarning: Detector = (history, call, config) => {
  if (isPollCall(call, config) || !config.detectors.genericRepeat) return undefined;
  const recent = config.genericRepeatInARow
    ? repeatStreakOf(history, call, config).count
    : history.recentCount(call.argsHash, call.toolName);
  if (recent < config.warningThreshold) return undefined;
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
};

/**
 * OpenClaw's `generic_repeat`, both levels: critical when identical arguments produced
 * identical outcomes `criticalThreshold` times; warning when the same arguments were used
 * `warningThreshold` times. In the decision order the two levels sit apart (newer detectors between).
 */
export const detectGenericRepeat: Detector = (history, call, config) =>
  detectGenericRepeatCritical(history, call, config) ?? detectGenericRepeatWarning(history, call, config);
