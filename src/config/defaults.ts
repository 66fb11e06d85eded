import type { ResolvedLoopDetectionConfig } from '../engine/config.js';

/** OpenClaw's documented defaults of `tools.loopDetection`. */
export const DEFAULT_HISTORY_SIZE = 30;
export const DEFAULT_WARNING_THRESHOLD = 10;
export const DEFAULT_CRITICAL_THRESHOLD = 20;
export const DEFAULT_GLOBAL_CIRCUIT_BREAKER_THRESHOLD = 30;
export const DEFAULT_UNKNOWN_TOOL_THRESHOLD = 10;
export const DEFAULT_POST_COMPACTION_WINDOW_SIZE = 3;
/** OpenClaw's built-in values of its newer rules (no knobs upstream; knobs here). */
export const DEFAULT_WAIT_CRITICAL_THRESHOLD = 10;
export const DEFAULT_TYPED_ERROR_WARNING_THRESHOLD = 3;
export const DEFAULT_TYPED_ERROR_CRITICAL_THRESHOLD = 5;
/** This package's opt-in detectors (off by default; these values apply once one is enabled). */
export const DEFAULT_CYCLE_CRITICAL_LAPS = 3;
export const DEFAULT_IDENTICAL_CALL_BUDGET = 10;
export const DEFAULT_LOW_GAIN_CALL_BUDGET = 5;
export const DEFAULT_SIMILAR_OUTCOME_THRESHOLD = 10;
export const DEFAULT_REDUNDANT_CALL_BUDGET = 8;
export const DEFAULT_SIMILARITY_PERCENT = 90;

/** A cycle needs two laps to be seen at all. */
export const MIN_CYCLE_LAPS = 2;

/**
 * The warning step of an opt-in detector whose critical is `critical` when none is set: half of
 * it, rounded up, as OpenClaw warns at 10 and blocks at 20; 0 (no warning) when no count at or
 * above `minimum` is left below the critical.
 */
export function ladderWarning(critical: number, minimum = 1): number {
  const warning = Math.max(minimum, Math.ceil(critical / 2));
  return warning < critical ? warning : 0;
}

/** The resolution of an absent `tools.loopDetection` block. */
export const DEFAULT_LOOP_DETECTION_CONFIG: ResolvedLoopDetectionConfig = Object.freeze({
  enabled: false,
  trackHistory: true,
  historySize: DEFAULT_HISTORY_SIZE,
  warningThreshold: DEFAULT_WARNING_THRESHOLD,
  criticalThreshold: DEFAULT_CRITICAL_THRESHOLD,
  globalCircuitBreakerThreshold: DEFAULT_GLOBAL_CIRCUIT_BREAKER_THRESHOLD,
  unknownToolThreshold: DEFAULT_UNKNOWN_TOOL_THRESHOLD,
  unknownToolWarningThreshold: 0,
  pingPongRequiresNoProgress: false,
  genericRepeatInARow: false,
  waitCriticalThreshold: DEFAULT_WAIT_CRITICAL_THRESHOLD,
  typedErrorWarningThreshold: DEFAULT_TYPED_ERROR_WARNING_THRESHOLD,
  typedErrorCriticalThreshold: DEFAULT_TYPED_ERROR_CRITICAL_THRESHOLD,
  cycleCriticalLaps: DEFAULT_CYCLE_CRITICAL_LAPS,
  cycleWarningLaps: ladderWarning(DEFAULT_CYCLE_CRITICAL_LAPS, MIN_CYCLE_LAPS),
  identicalCallBudget: DEFAULT_IDENTICAL_CALL_BUDGET,
  identicalCallWarningThreshold: ladderWarning(DEFAULT_IDENTICAL_CALL_BUDGET),
  lowGainCallBudget: DEFAULT_LOW_GAIN_CALL_BUDGET,
  lowGainCallWarningThreshold: ladderWarning(DEFAULT_LOW_GAIN_CALL_BUDGET),
  similarOutcomeThreshold: DEFAULT_SIMILAR_OUTCOME_THRESHOLD,
  similarOutcomeWarningThreshold: ladderWarning(DEFAULT_SIMILAR_OUTCOME_THRESHOLD),
  redundantCallBudget: DEFAULT_REDUNDANT_CALL_BUDGET,
  redundantCallWarningThreshold: ladderWarning(DEFAULT_REDUNDANT_CALL_BUDGET),
  similarityPercent: DEFAULT_SIMILARITY_PERCENT,
  detectors: Object.freeze({
    genericRepeat: true,
    knownPollNoProgress: true,
    pingPong: true,
    vetoesExtendStreak: true,
    batchAdmission: true,
    execFailureIdentity: true,
    typedErrorRepeat: true,
    argumentChurn: true,
    waitPoll: true,
    resultCycle: false,
    identicalCallBudget: false,
    similarOutcome: false,
    redundantCall: false,
  }),
  postCompactionGuard: Object.freeze({ enabled: true, windowSize: DEFAULT_POST_COMPACTION_WINDOW_SIZE }),
  // Own, so that no `byTool` is ever found through a polluted `Object.prototype`.
  byTool: undefined,
});
