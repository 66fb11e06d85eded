import type { Detector } from './detector.js';
import { isPollCall } from './no-progress-streak.js';

/**
 * Opt-in `identical_call_budget` (critical), gated by `detectors.identicalCallBudget`: the call
 * repeats the previous identical calls in a row, and either `identicalCallBudget` of them ran
 * whatever their results, or `lowGainCallBudget` of them returned near-duplicates of one another
 * (at `similarityPercent`; numbers masked), so repeating gained almost nothing — OpenClaw
 * #112447's `date +%S`, whose result changes on every call.
 */
export const detectIdenticalCallBudget: Detector = (history, call, config) => {
  if (!config.detectors.identicalCallBudget || isPollCall(call, config)) return undefined;
  const streak = history.identicalCalls(call.argsHash, call.toolName, config.similarityPercent);
  const lowGain = streak.lowGain >= config.lowGainCallBudget;
  if (!lowGain && streak.count < config.identicalCallBudget) return undefined;
  const count = lowGain ? streak.lowGain : streak.count;
  const why = lowGain
    ? `each result nearly the same as the one before (budget ${config.lowGainCallBudget})`
    : `whatever the results (budget ${config.identicalCallBudget})`;
  return {
    verdict: {
      level: 'critical',
      detector: 'identical_call_budget',
      count,
      message: `CRITICAL: Called ${call.toolName} with identical arguments ${count} times in a row, ${why}. Session execution blocked: the budget for repeating this call is spent. Change the arguments or use another tool.`,
      warningKey: `identical:${call.toolName}:${call.argsHash}`,
      loopSignatures: [call.argsHash],
    },
    log: {
      level: 'error',
      message: `Identical call budget spent: ${call.toolName} called ${count} times in a row${lowGain ? ' with low-gain results' : ''}`,
    },
  };
};
