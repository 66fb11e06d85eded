/**
 * The settings the engine runs with: a `tools.loopDetection` block after validation, defaults
 * and OpenClaw's clamps (critical above warning, breaker above critical). Every value is
 * present and valid; `tool-loop-guard`'s config resolver builds it from the user's block.
 */
export interface ResolvedLoopDetectionConfig {
  /** Rolling detectors run (`enabled === true`). */
  readonly enabled: boolean;
  /** Calls and outcomes are recorded (`enabled !== false`), for the post-compaction guard. */
  readonly trackHistory: boolean;
  /** Records kept per run; the oldest is evicted first. */
  readonly historySize: number;
  readonly warningThreshold: number;
  readonly criticalThreshold: number;
  readonly globalCircuitBreakerThreshold: number;
  readonly unknownToolThreshold: number;
  /** `unknown_tool_repeat` warns at this streak; 0: no warning, OpenClaw's (default 0). */
  readonly unknownToolWarningThreshold: number;
  /**
   * `ping_pong` warns and blocks only an alternation that shows no progress (both sides repeat
   * one result, and no write changed its target between the laps), counted by the repeats of
   * each side; OpenClaw warns on any alternation (default false).
   */
  readonly pingPongRequiresNoProgress: boolean;
  /**
   * `generic_repeat` counts only identical calls made back to back, for its warning and its
   * critical; OpenClaw counts them with other calls in between, and warns on the same arguments
   * whatever the outcomes (default false).
   */
  readonly genericRepeatInARow: boolean;
  /** Critical threshold of `wait` polls (OpenClaw's 10: a wait only resumes existing work). */
  readonly waitCriticalThreshold: number;
  /** Typed-error identity: warning at this many failures with one typed code in the run (OpenClaw's 3). */
  readonly typedErrorWarningThreshold: number;
  /** Typed-error identity: critical at this many (OpenClaw's 5; clamped above the warning). */
  readonly typedErrorCriticalThreshold: number;
  /**
   * `result_cycle`: a cycle of period 2–5 whose positions repeat their arguments and result is
   * critical when the call would complete this many laps (default 3).
   */
  readonly cycleCriticalLaps: number;
  /** `result_cycle` warns at this many full laps; 0: no warning (only when the critical is 2 laps). */
  readonly cycleWarningLaps: number;
  /** `identical_call_budget`: consecutive identical calls allowed, whatever their results (default 10). */
  readonly identicalCallBudget: number;
  /** `identical_call_budget` warns at this many identical calls in a row; 0: no warning. */
  readonly identicalCallWarningThreshold: number;
  /**
   * `identical_call_budget`: consecutive identical calls allowed while each result is a
   * near-duplicate of the one before it (little information gained; default 5).
   */
  readonly lowGainCallBudget: number;
  /** `identical_call_budget` warns at this many low-gain calls in a row; 0: no warning. */
  readonly lowGainCallWarningThreshold: number;
  /** `similar_outcome`: failures of one tool in a row with the same explained error before its next call is critical (default 10). */
  readonly similarOutcomeThreshold: number;
  /** `similar_outcome` warns at this many failures in a row; 0: no warning. */
  readonly similarOutcomeWarningThreshold: number;
  /**
   * `redundant_call`: calls of the history allowed to repeat an earlier call and get its result
   * again (or be blocked) before a call asking again for a known result is critical (default 8).
   */
  readonly redundantCallBudget: number;
  /** `redundant_call` warns at this many redundant calls; 0: no warning. */
  readonly redundantCallWarningThreshold: number;
  /** `identical_call_budget`'s low-gain results: an estimated shingle similarity of at least this many percent (default 90). */
  readonly similarityPercent: number;
  /** Toggles of the rolling detectors and of the newer OpenClaw rules, each on by default. */
  readonly detectors: {
    readonly genericRepeat: boolean;
    readonly knownPollNoProgress: boolean;
    readonly pingPong: boolean;
    /** Blocked calls are recorded as loop vetoes that extend the streak once anchored (OpenClaw #127701). */
    readonly vetoesExtendStreak: boolean;
    /** Calls still in flight count as no-progress vetoes for later calls (OpenClaw's whole-batch admission). */
    readonly batchAdmission: boolean;
    /** `exec` terminal failures with one identity form a streak across changing arguments. */
    readonly execFailureIdentity: boolean;
    /** Failures stamped with one `typed_code` are counted across arguments (`typed_error_repeat`). */
    readonly typedErrorRepeat: boolean;
    /** `argument_churn` warnings: stable churn over argument patterns, same-target write churn. */
    readonly argumentChurn: boolean;
    /** `wait` is a known poll, critical at `waitCriticalThreshold`. */
    readonly waitPoll: boolean;
    /** Opt-in `result_cycle` (default off), with per-cycle breaking: once tripped, every member call is blocked. */
    readonly resultCycle: boolean;
    /** Opt-in `identical_call_budget` (default off). */
    readonly identicalCallBudget: boolean;
    /** Opt-in `similar_outcome` (default off). */
    readonly similarOutcome: boolean;
    /** Opt-in `redundant_call` (default off). */
    readonly redundantCall: boolean;
  };
  readonly postCompactionGuard: { readonly enabled: boolean; readonly windowSize: number };
  /**
   * The settings for calls of a tool whose thresholds differ (`byTool`), by tool name: this
   * config with that tool's thresholds. Absent: every tool uses this config.
   */
  readonly byTool?: ReadonlyMap<string, ResolvedLoopDetectionConfig>;
}

/** The settings a call of `toolName` is judged with (see `byTool`). */
export function configForTool(config: ResolvedLoopDetectionConfig, toolName: string): ResolvedLoopDetectionConfig {
  return config.byTool?.get(toolName) ?? config;
}

/**
 * Whether a config's detectors read result sketches and shapes (`identical_call_budget`'s
 * low-gain budget); otherwise the history does not keep them.
 */
export function readsResultSimilarity(config: ResolvedLoopDetectionConfig): boolean {
  return config.enabled && config.detectors.identicalCallBudget;
}
