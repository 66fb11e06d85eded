import type { Detector, DetectorFinding } from './detector.js';
import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopLevel, ToolCallSignature } from '../types.js';
import { isPollCall } from './no-progress-streak.js';

function identicalCallFinding(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
  level: LoopLevel,
): DetectorFinding | undefined {
  if (!config.detectors.identicalCallBudget || isPollCall(call, config)) return undefined;
  const critical = level === 'critical';
  const budget = critical ? config.identicalCallBudget : config.identicalCallWarningThreshold;
  const lowGainBudget = critical ? config.lowGainCallBudget : config.lowGainCallWarningThreshold;
  if (budget === 0 && lowGainBudget === 0) return undefined;
  const streak = history.identicalCalls(call.argsHash, call.toolName, config.similarityPercent);
  const lowGain = lowGainBudget > 0 && streak.lowGain >= lowGainBudget;
  if (!lowGain && (budget === 0 || streak.count < budget)) return undefined;
  const count = lowGain ? streak.lowGain : streak.count;
  const tool = call.toolName;
  const why = lowGain
    ? `each result nearly the same as the one before (${critical ? 'budget' : 'warning at'} ${lowGainBudget})`
    : `whatever the results (${critical ? 'budget' : 'warning at'} ${budget})`;
  return {
    verdict: {
      level,
      detector: 'identical_call_budget',
      count,
      message: critical
        ? `CRITICAL: Called ${tool} with identical arguments ${count} times in a row, ${why}. Session execution blocked: the budget for repeating this call is spent. Change the arguments or use another tool.`
        : `WARNING: You have called ${tool} with identical arguments ${count} times in a row, ${why}. If this is not making progress, change the arguments or use another tool.`,
      warningKey: `identical:${tool}:${call.argsHash}`,
      loopSignatures: [call.argsHash],
      ...(critical ? {} : { threshold: lowGain ? lowGainBudget : budget }),
    },
    log: {
      level: critical ? 'error' : 'warn',
      message: `${critical ? 'Identical call budget spent' : 'Identical call warning'}: ${tool} called ${count} times in a row${lowGain ? ' with low-gain results' : ''}`,
    },
  };
}

/**
 * Opt-in `identical_call_budget` (critical), gated by `detectors.identicalCallBudget`: the call
 * repeats the previous identical calls in a row, and either `identicalCallBudget` of them ran
 * whatever their results, or `lowGainCallBudget` of them returned near-duplicates of one another
 * (at `similarityPercent`; numbers masked), so repeating gained almost nothing — OpenClaw
 * #112447's `date +%S`, whose result changes on every call.
 */
export const detectIdenticalCallBudget: Detector = (history, call, config) =>
  identicalCallFinding(history, call, config, 'critical');

/**
 * `identical_call_budget`'s warning step, at `identicalCallWarningThreshold` or
 * `lowGainCallWarningThreshold` (see {@link detectIdenticalCallBudget}).
 */
export const detectIdenticalCallBudgetWarning: Detector = (history, call, config) =>
  identicalCallFinding(history, call, config, 'warning');
