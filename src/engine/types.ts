/** Level of a loop verdict. */
export type LoopLevel = 'warning' | 'critical';

/** The rolling-history detectors (OpenClaw names). */
export type LoopDetectorName =
  'generic_repeat' | 'known_poll_no_progress' | 'ping_pong' | 'unknown_tool_repeat' | 'global_circuit_breaker';

/** A tool call as the engine sees it: everything the detectors and the history need to know about it. */
export interface ToolCallSignature {
  /** Normalised tool name. */
  readonly toolName: string;
  /** `<toolName>:<digest of normalised params>`. */
  readonly argsHash: string;
  /** OpenClaw's known polls: `command_status`, or `process` with action `poll` / `log`. */
  readonly knownPoll: boolean;
}

/** One entry of a run's tool-call history, as OpenClaw's history records it (absent fields omitted). */
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
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  /** The streak or count the threshold was compared with. */
  readonly count: number;
  /** OpenClaw's message text (shown to the model / operator). */
  readonly message: string;
  /** De-duplication key for warnings: one per detector, tool and arguments (and result, for criticals). */
  readonly warningKey: string;
  /** For `ping_pong`: the tool of the newest record in the alternation. */
  readonly pairedToolName?: string;
  /** For `ping_pong`: the args hash of the newest record in the alternation. */
  readonly pairedSignature?: string;
}

/** The answer to "may this call run?" */
export interface LoopCheck {
  /** The detector verdict, when one matched (suppressed warnings included). */
  readonly verdict?: LoopVerdict;
  /** Whether the verdict is to be surfaced: every critical, and warnings that pass suppression. */
  readonly emit: boolean;
  /** True for a critical verdict: the call must not run and is not recorded (unless it had already run, see `LoopRun.judge`). */
  readonly blocked: boolean;
}
