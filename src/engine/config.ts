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
  /** Critical threshold of `wait` polls (OpenClaw's 10: a wait only resumes existing work). */
  readonly waitCriticalThreshold: number;
  /** Typed-error identity: warning at this many failures with one typed code in the run (OpenClaw's 3). */
  readonly typedErrorWarningThreshold: number;
  /** Typed-error identity: critical at this many (OpenClaw's 5; clamped above the warning). */
  readonly typedErrorCriticalThreshold: number;
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
  };
  readonly postCompactionGuard: { readonly enabled: boolean; readonly windowSize: number };
}
