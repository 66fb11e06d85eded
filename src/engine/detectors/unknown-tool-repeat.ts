import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopLevel, ToolCallSignature } from '../types.js';

function unknownToolFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: LoopLevel,
): DetectorFinding | undefined {
  const critical = level === 'critical';
  const threshold = critical ? config.unknownToolThreshold : config.unknownToolWarningThreshold;
  if (threshold === 0) return undefined;
  const streak = history.unknownToolStreak(call.toolName);
  if (streak.count < threshold) return undefined;
  const name = streak.unknownToolName ?? call.toolName;
  const verdict = {
    level,
    detector: 'unknown_tool_repeat',
    count: streak.count,
    message: critical
      ? `CRITICAL: attempted unavailable tool ${name} ${streak.count} times. Stop retrying that missing tool and answer without it.`
      : `WARNING: attempted unavailable tool ${name} ${streak.count} times. That tool does not exist here: stop calling it and answer without it.`,
    warningKey: `unknown-tool:${call.toolName}:${streak.unknownToolName ?? 'unknown'}`,
    loopSignatures: history.newestArgsHashes(streak.count),
  } as const;
  // OpenClaw's critical writes no log line.
  return critical
    ? { verdict }
    : {
        verdict: { ...verdict, threshold },
        log: { level: 'warn', message: `Unknown tool warning: ${name} attempted ${streak.count} times` },
      };
}

/**
 * OpenClaw's `unknown_tool_repeat`, checked first: the newest records of this tool failed naming the
 * same unavailable tool at least `unknownToolThreshold` times in a row. Not gated by the
 * detector toggles; writes no log line.
 */
export const detectUnknownToolRepeat: Detector = (history, call, config) =>
  unknownToolFinding(history, call, config, 'critical');

/**
 * The unknown-tool streak's warning step, at `unknownToolWarningThreshold` (0, OpenClaw's
 * default, has none): the model hears about the missing tool before its calls are blocked.
 */
export const detectUnknownToolRepeatWarning: Detector = (history, call, config) =>
  unknownToolFinding(history, call, config, 'warning');
