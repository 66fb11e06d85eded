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
}

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
  /** Critical threshold of `wait` polls (not clamped). Default `10`. */
  waitCriticalThreshold?: number;
  /** Typed-error identity warning threshold. Default `3`. */
  typedErrorWarningThreshold?: number;
  /** Typed-error identity critical threshold; clamped to the warning + 1 when not above it. Default `5`. */
  typedErrorCriticalThreshold?: number;
  /** Detector toggles. */
  detectors?: LoopDetectorToggles;
  /** Post-compaction guard settings. */
  postCompactionGuard?: PostCompactionGuardConfig;
}

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
