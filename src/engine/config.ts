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
  /** Toggles of the rolling detectors that can be switched off one by one. */
  readonly detectors: {
    readonly genericRepeat: boolean;
    readonly knownPollNoProgress: boolean;
    readonly pingPong: boolean;
  };
  readonly postCompactionGuard: { readonly enabled: boolean; readonly windowSize: number };
}
