import type { Detector } from './detector.js';
import { isPollCall } from './no-progress-streak.js';

/**
 * Opt-in `result_cycle` (critical), gated by `detectors.resultCycle`: the call continues a cycle
 * of 2–5 calls (A→B→C→A…) whose every position repeated its arguments and its result for
 * `cycleCriticalLaps` full laps. Known polls are left to `known_poll_no_progress`. Per-cycle breaking: once the cycle has tripped, every member
 * call is blocked, not only the next one in the cycle, until the run calls something else
 * (an agent that merely switches to another member stays in the loop, OpenClaw #64500).
 */
export const detectResultCycle: Detector = (history, call, config) => {
  if (!config.detectors.resultCycle || isPollCall(call, config)) return undefined;
  const cycle = history.resultCycle(call.argsHash, call.toolName, config.cycleCriticalLaps);
  if (cycle.count === 0 || (!cycle.tripped && cycle.laps < config.cycleCriticalLaps)) return undefined;
  const tools = cycle.signatures.map((signature) => signature.slice(0, signature.lastIndexOf(':')) || signature);
  return {
    verdict: {
      level: 'critical',
      detector: 'result_cycle',
      count: cycle.count,
      message: `CRITICAL: You are repeating a cycle of ${cycle.period} tool calls (${tools.join(' → ')}) with identical results (${cycle.laps} laps, ${cycle.count} calls). Session execution blocked to prevent resource waste. Every call of this cycle stays blocked: do something different.`,
      warningKey: `cycle:${[...cycle.signatures].sort().join('|')}`,
      loopSignatures: cycle.signatures,
      period: cycle.period,
    },
    log: {
      level: 'error',
      message: `Critical result cycle detected: period=${cycle.period} laps=${cycle.laps} currentTool=${call.toolName}`,
    },
  };
};
