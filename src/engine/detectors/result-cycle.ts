import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopLevel, ToolCallSignature } from '../types.js';
import { isPollCall } from './no-progress-streak.js';

function resultCycleFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: LoopLevel,
): DetectorFinding | undefined {
  if (!config.detectors.resultCycle || isPollCall(call, config)) return undefined;
  if (level === 'warning' && config.cycleWarningLaps === 0) return undefined;
  const cycle = history.resultCycle(call.argsHash, call.toolName, config.cycleCriticalLaps);
  if (cycle.count === 0) return undefined;
  const tripped = cycle.tripped || cycle.laps >= config.cycleCriticalLaps;
  if (level === 'critical' ? !tripped : cycle.laps < config.cycleWarningLaps) return undefined;
  const critical = level === 'critical';
  const tools = cycle.signatures.map((signature) => signature.slice(0, signature.lastIndexOf(':')) || signature);
  const what = `a cycle of ${cycle.period} tool calls (${tools.join(' → ')}) with identical results (${cycle.laps} laps, ${cycle.count} calls)`;
  return {
    verdict: {
      level,
      detector: 'result_cycle',
      count: cycle.count,
      message: critical
        ? `CRITICAL: You are repeating ${what}. Session execution blocked to prevent resource waste. Every call of this cycle stays blocked: do something different.`
        : `WARNING: You are repeating ${what}. If this is not making progress, do something different or report the task as failed.`,
      warningKey: `cycle:${[...cycle.signatures].sort().join('|')}`,
      loopSignatures: cycle.signatures,
      period: cycle.period,
      // Counted in calls: a warning when the cycle reaches its warning laps, none again until twice as many.
      ...(critical ? {} : { threshold: cycle.period * config.cycleWarningLaps }),
    },
    log: {
      level: critical ? 'error' : 'warn',
      message: `${critical ? 'Critical result cycle detected' : 'Result cycle warning'}: period=${cycle.period} laps=${cycle.laps} currentTool=${call.toolName}`,
    },
  };
}

/**
 * Opt-in `result_cycle` (critical), gated by `detectors.resultCycle`: the call continues a cycle
 * of 2–5 calls (A→B→C→A…) whose every position repeated its arguments and its result for
 * `cycleCriticalLaps` full laps. Known polls are left to `known_poll_no_progress`. Per-cycle
 * breaking: once the cycle has tripped, every member call is blocked, not only the next one in
 * the cycle, until the run calls something else (an agent that merely switches to another
 * member stays in the loop, OpenClaw #64500).
 */
export const detectResultCycle: Detector = (history, call, config) =>
  resultCycleFinding(history, call, config, 'critical');

/** `result_cycle`'s warning step, from `cycleWarningLaps` full laps on (see {@link detectResultCycle}). */
export const detectResultCycleWarning: Detector = (history, call, config) =>
  resultCycleFinding(history, call, config, 'warning');
