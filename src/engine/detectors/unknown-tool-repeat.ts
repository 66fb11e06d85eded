import type { Detector } from './detector.js';

/**
 * OpenClaw's `unknown_tool_repeat`, checked first: the newest records of this tool failed naming the
 * same unavailable tool at least `unknownToolThreshold` times in a row. Not gated by the
 * detector toggles; writes no log line.
 */
export const detectUnknownToolRepeat: Detector = (history, call, config) => {
  const streak = history.unknownToolStreak(call.toolName);
  if (streak.count < config.unknownToolThreshold) return undefined;
  const name = streak.unknownToolName ?? call.toolName;
  return {
    verdict: {
      level: 'critical',
      detector: 'unknown_tool_repeat',
      count: streak.count,
      message: `CRITICAL: attempted unavailable tool ${name} ${streak.count} times. Stop retrying that missing tool and answer without it.`,
      warningKey: `unknown-tool:${call.toolName}:${streak.unknownToolName ?? 'unknown'}`,
      loopSignatures: history.newestArgsHashes(streak.count),
    },
  };
};
