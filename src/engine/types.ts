/** Level of a loop verdict. */
export type LoopLevel = 'warning' | 'critical';

/** The rolling-history detectors (OpenClaw names). */
export type LoopDetectorName =
  | 'generic_repeat'
  | 'known_poll_no_progress'
  | 'ping_pong'
  | 'unknown_tool_repeat'
  | 'global_circuit_breaker';

/** The call being checked: everything the detectors need to know about it. */
export interface ToolCallSignature {
  /** Normalised tool name. */
  readonly toolName: string;
  /** `<toolName>:<digest of normalised params>`. */
  readonly argsHash: string;
  /** `command_status`, or `process` with action `poll` / `log`. */
  readonly knownPoll: boolean;
  /** Run scope; empty or whitespace-only means unscoped. */
  readonly runId?: string;
}

/** One entry of a session's tool-call history (spec §b.1). */
export interface ToolCallRecord {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId?: string;
  readonly runId?: string;
  readonly resultHash?: string;
  readonly unknownToolName?: string;
  readonly timestamp: number;
}

/** A detector's finding. */
export interface LoopVerdict {
  readonly stuck: true;
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  /** The streak or count the threshold was compared with. */
  readonly count: number;
  /** OpenClaw's message text (shown to the model / operator). */
  readonly message: string;
  /** De-duplication key for warnings (spec §b.5). */
  readonly warningKey: string;
  /** For `ping_pong`: the tool of the newest record in the alternation. */
  readonly pairedToolName?: string;
  /** For `ping_pong`: the args hash of the newest record in the alternation. */
  readonly pairedSignature?: string;
}

/** Result of a detection: stuck with a verdict, or not stuck. */
export type LoopDetectionResult = LoopVerdict | { readonly stuck: false };

/** The result returned when nothing is stuck. */
export const NOT_STUCK: LoopDetectionResult = Object.freeze({ stuck: false });
