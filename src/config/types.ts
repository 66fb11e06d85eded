export type { ResolvedLoopDetectionConfig } from '../engine/config.js';

/** Detector toggles (`tools.loopDetection.detectors`). They gate the rolling detectors only. */
export interface LoopDetectorToggles {
  /** Gates `generic_repeat`. Default `true`. */
  genericRepeat?: boolean;
  /** Gates `known_poll_no_progress`. Default `true`. */
  knownPollNoProgress?: boolean;
  /** Gates `ping_pong`. Default `true`. */
  pingPong?: boolean;
  /**
   * Blocked calls are recorded as loop vetoes that extend the no-progress streak once an older
   * outcome anchors them, so a loop that goes on reaches the circuit breaker (OpenClaw #127701).
   * `false`: blocked calls are not recorded (the older behaviour: the count stays at the critical). Default `true`.
   */
  vetoesExtendStreak?: boolean;
  /** Calls still in flight count as no-progress vetoes for the calls judged after them (OpenClaw's whole-batch admission). Default `true`. */
  batchAdmission?: boolean;
  /** `exec` terminal failures with one failure identity form a streak across changing arguments. Default `true`. */
  execFailureIdentity?: boolean;
  /** Gates `typed_error_repeat`: failures stamped with one `typed_code`, counted across arguments. Default `true`. */
  typedErrorRepeat?: boolean;
  /** Gates `argument_churn` (stable argument churn, same-target write churn; warnings only). Default `true`. */
  argumentChurn?: boolean;
  /** `wait` is a known poll, critical at `waitCriticalThreshold`. Default `true`. */
  waitPoll?: boolean;
  /**
   * Opt-in `result_cycle`: a cycle of 2–5 calls (A→B→C→A…) in which each position repeats its
   * arguments and its result, critical at `cycleCriticalLaps`; once it trips, every member call
   * is blocked until the run calls something else. Default `false`.
   */
  resultCycle?: boolean;
  /**
   * Opt-in `identical_call_budget`: consecutive identical calls are critical beyond
   * `identicalCallBudget`, or beyond `lowGainCallBudget` while each result is a near-duplicate of
   * the one before (results that change only in numbers, like `date +%S`). Default `false`.
   */
  identicalCallBudget?: boolean;
  /**
   * Opt-in `similar_outcome`: one tool's outcomes stay near-duplicates (volatile fields learned
   * and masked) `similarOutcomeThreshold` times in a row, across changing arguments. Default `false`.
   */
  similarOutcome?: boolean;
  /**
   * Opt-in `redundant_call`: a call asking again for a result the run already has is critical once
   * `redundantCallBudget` calls of the history repeated an earlier call and got its result again,
   * whichever calls they were (rereading a file, resending a rejected edit). Default `false`.
   */
  redundantCall?: boolean;
}

/** Named settings a block can start from (`profile`); explicit keys override them. */
export type LoopDetectionProfileName = 'small-model';

/** Post-compaction guard settings (`tools.loopDetection.postCompactionGuard`). */
export interface PostCompactionGuardConfig {
  /** Observations judged after each compaction-retry. Positive integer, default `3`. */
  windowSize?: number;
}

/**
 * OpenClaw's `tools.loopDetection` block. Every key is optional; invalid values
 * fall back to the default with a warning.
 */
export interface LoopDetectionConfig {
  /**
   * A named profile whose settings apply under every key set explicitly (explicit keys win;
   * nested `detectors` keys one by one). `'small-model'`, the recommended profile: detection on,
   * identical calls back to back warned at 8 and blocked at 10, `ping_pong` only with no-progress
   * evidence, `similar_outcome` on (see `profiles/small-model.json5`).
   * Unknown names are ignored with a warning. Default: none.
   */
  profile?: LoopDetectionProfileName;
  /**
   * Tri-state. Rolling detectors run only when `true` (default off); the post-compaction
   * guard runs unless this is exactly `false`.
   */
  enabled?: boolean;
  /** Records kept per session. Positive integer, default `30`. */
  historySize?: number;
  /** Warning threshold W. Positive integer, default `10`. */
  warningThreshold?: number;
  /** Critical threshold C; clamped to W + 1 when not above W. Default `20`. */
  criticalThreshold?: number;
  /** Breaker threshold B; clamped to C + 1 when not above C. Default `30`. */
  globalCircuitBreakerThreshold?: number;
  /** Unknown-tool retry threshold U (not clamped). Default `10`. */
  unknownToolThreshold?: number;
  /**
   * `unknown_tool_repeat` warns at this streak, so it warns before it blocks; clamped below U.
   * Default: no warning (OpenClaw's rule).
   */
  unknownToolWarningThreshold?: number;
  /**
   * `ping_pong` warns and blocks only an alternation that shows no progress: both sides repeat one
   * result, and no `write` changed its target between the laps (an edit / run-tests alternation
   * whose results change is progress). It is then counted as `generic_repeat` counts, by the
   * repeats of each side: warned at twice `warningThreshold` alternating calls, blocked at twice
   * `criticalThreshold`. Default `false`: OpenClaw warns on any alternation at `warningThreshold`.
   */
  pingPongRequiresNoProgress?: boolean;
  /**
   * `generic_repeat` counts only identical calls with identical outcomes made back to back, for
   * its warning and its critical: an agent that reruns the same failing test between edits is
   * working, one that sends the same call again and again is not. Default `false`: OpenClaw
   * counts repeats with other calls in between, and warns on the same arguments whatever the
   * outcomes.
   */
  genericRepeatInARow?: boolean;
  /** Critical threshold of `wait` polls (not clamped). Default `10`. */
  waitCriticalThreshold?: number;
  /** Typed-error identity warning threshold. Default `3`. */
  typedErrorWarningThreshold?: number;
  /** Typed-error identity critical threshold; clamped to the warning + 1 when not above it. Default `5`. */
  typedErrorCriticalThreshold?: number;
  /** `result_cycle`: full laps a cycle must have made before its next call is critical; clamped to at least 2. Default `3`. */
  cycleCriticalLaps?: number;
  /**
   * `result_cycle` warns at this many full laps; clamped below `cycleCriticalLaps`, at least 2.
   * Default: half the critical, rounded up, at least 2 (none when the critical is 2 laps).
   */
  cycleWarningLaps?: number;
  /** `identical_call_budget`: consecutive identical calls allowed, whatever their results. Default `10`. */
  identicalCallBudget?: number;
  /** `identical_call_budget` warns at this many identical calls in a row; clamped below the budget. Default: half the budget, rounded up. */
  identicalCallWarningThreshold?: number;
  /** `identical_call_budget`: consecutive identical calls allowed while the results are near-duplicates. Default `5`. */
  lowGainCallBudget?: number;
  /** `identical_call_budget` warns at this many low-gain calls in a row; clamped below the budget. Default: half the budget, rounded up. */
  lowGainCallWarningThreshold?: number;
  /**
   * `similar_outcome`: calls of one tool in a row that failed with the same explained error (word
   * for word, whatever the arguments) before its next call is critical. Default `10`.
   */
  similarOutcomeThreshold?: number;
  /** `similar_outcome` warns at this many failures in a row; clamped below the threshold. Default: half of it, rounded up. */
  similarOutcomeWarningThreshold?: number;
  /**
   * `redundant_call`: calls of the history allowed to repeat an earlier call and get its result
   * again (or be blocked) before a call asking again for a known result is critical. Default `8`.
   */
  redundantCallBudget?: number;
  /** `redundant_call` warns at this many redundant calls; clamped below the budget. Default: half of it, rounded up. */
  redundantCallWarningThreshold?: number;
  /** `identical_call_budget`'s low-gain results: estimated shingle similarity of at least this percentage (1–100). Default `90`. */
  similarityPercent?: number;
  /**
   * Thresholds per tool, by tool name: an entry's keys override the block's for calls of that
   * tool (threshold keys only: history, toggles and the guard belong to the run, not to a tool).
   * `tool-loop-guard calibrate` writes them for tools whose healthy repeats differ from the
   * others'. Default: none.
   */
  byTool?: Record<string, ToolThresholds>;
  /** Detector toggles. */
  detectors?: LoopDetectorToggles;
  /** Post-compaction guard settings. */
  postCompactionGuard?: PostCompactionGuardConfig;
}

/** The keys a `byTool` entry may set. */
export const TOOL_THRESHOLD_KEYS = [
  'warningThreshold',
  'criticalThreshold',
  'globalCircuitBreakerThreshold',
  'unknownToolThreshold',
  'unknownToolWarningThreshold',
  'waitCriticalThreshold',
  'typedErrorWarningThreshold',
  'typedErrorCriticalThreshold',
  'cycleCriticalLaps',
  'cycleWarningLaps',
  'identicalCallBudget',
  'identicalCallWarningThreshold',
  'lowGainCallBudget',
  'lowGainCallWarningThreshold',
  'similarOutcomeThreshold',
  'similarOutcomeWarningThreshold',
  'redundantCallBudget',
  'redundantCallWarningThreshold',
] as const;

/** The thresholds of one tool in `byTool`. */
export type ToolThresholds = Partial<Pick<LoopDetectionConfig, (typeof TOOL_THRESHOLD_KEYS)[number]>>;

/** One entry of `agents.list`: a per-agent override merged field by field over the global block. */
export interface AgentLoopDetectionEntry {
  id: string;
  tools?: { loopDetection?: LoopDetectionConfig };
}

/** The OpenClaw-shaped configuration object accepted by the processor, helpers and CLI. */
export interface ToolLoopGuardConfig {
  tools?: { loopDetection?: LoopDetectionConfig };
  agents?: { list?: AgentLoopDetectionEntry[] };
}
