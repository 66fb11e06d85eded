import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopLevel, ToolCallSignature } from '../types.js';
import { isPollCall } from './no-progress-streak.js';

function similarOutcomeFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: LoopLevel,
): DetectorFinding | undefined {
  const threshold = level === 'critical' ? config.similarOutcomeThreshold : config.similarOutcomeWarningThreshold;
  if (!config.detectors.similarOutcome || threshold === 0 || isPollCall(call, config)) return undefined;
  const similar = history.similarOutcomes(call.toolName);
  if (similar.count < threshold) return undefined;
  const n = similar.count;
  const tool = call.toolName;
  const across =
    similar.signatures.length > 1 || similar.signatures[0] !== call.argsHash ? ' even as the arguments changed' : '';
  return {
    verdict: {
      level,
      detector: 'similar_outcome',
      count: n,
      message:
        level === 'critical'
          ? `CRITICAL: ${tool} failed with the same error ${n} times in a row${across}. Session execution blocked to prevent resource waste. Stop retrying this tool: reassess the task.`
          : `WARNING: ${tool} has failed with the same error ${n} times in a row${across}. Changing the arguments is not helping: reassess the task instead of retrying.`,
      warningKey: `similar:${tool}`,
      loopSignatures: similar.signatures,
      ...(level === 'warning' ? { threshold } : {}),
    },
    log: {
      level: level === 'critical' ? 'error' : 'warn',
      message: `${level === 'critical' ? 'Critical similar outcomes detected' : 'Similar outcomes warning'}: ${tool} failed with the same error ${n} times`,
    },
  };
}

/**
 * Opt-in `similar_outcome` (critical), gated by `detectors.similarOutcome`: the tool's newest
 * `similarOutcomeThreshold` calls in a row failed with the same explained error, word for word,
 * even as the arguments changed — the tool rejects whatever the agent varies (AutoCodeRover's
 * "The search API calls seem not valid" feedback). Successes never count: alike results across
 * different arguments are quiet progress (a status lookup answering `available` for several
 * flights, silent shell commands).
 */
export const detectSimilarOutcome: Detector = (history, call, config) =>
  similarOutcomeFinding(history, call, config, 'critical');

/** `similar_outcome`'s warning step, at `similarOutcomeWarningThreshold` (see {@link detectSimilarOutcome}). */
export const detectSimilarOutcomeWarning: Detector = (history, call, config) =>
  similarOutcomeFinding(history, call, config, 'warning');
