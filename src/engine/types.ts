/** Level of a loop verdict. */
export type LoopLevel = 'warning' | 'critical';

/**
 * The rolling-history detectors: OpenClaw's names, then this package's opt-in ones
 * (`result_cycle`, `identical_call_budget`, `similar_outcome`, `redundant_call`; off unless enabled).
 */
export type LoopDetectorName =
  | 'generic_repeat'
  | 'known_poll_no_progress'
  | 'ping_pong'
  | 'unknown_tool_repeat'
  | 'global_circuit_breaker'
  | 'argument_churn'
  | 'typed_error_repeat'
  | 'result_cycle'
  | 'identical_call_budget'
  | 'similar_outcome'
  | 'redundant_call';

/**
 * What kind of outcome a record holds, beyond its hash (OpenClaw's `outcomeKind`):
 * - `tool-loop-veto`: the call was blocked by loop detection (no hash; extends the streak once anchored);
 * - `terminal-exec-failure`: an `exec` that ended with a real nonzero exit and real output;
 * - `argument-validation`: the call failed schema validation and never reached the tool;
 * - `write-mutation`: a `write` that changed its target.
 */
export type OutcomeKind = 'tool-loop-veto' | 'terminal-exec-failure' | 'argument-validation' | 'write-mutation';

/**
 * An outcome's identity for the history: its hash and the facts the newer detectors read.
 * An empty object means "record nothing" (an `undefined` result).
 */
export interface OutcomeHash {
  /** The outcome digest; absent for a loop veto. */
  resultHash?: string;
  /** The unavailable tool an error names. */
  unknownToolName?: string;
  outcomeKind?: OutcomeKind;
  /** For terminal `exec` failures: the digest of the failure with its volatile text masked. */
  failureIdentityHash?: string;
  /** A no-progress outcome that is not an error (a `write` that changed nothing). Errors are no-progress by their hash. */
  noProgress?: true;
  /** For `write-mutation`: the digest of the written target. */
  mutationTargetHash?: string;
  /** A stamped `typed_code`: `<family>:<CODE>` (the family is the tool, or `tool_call:<inner id>`). */
  typedError?: string;
  /**
   * An error whose message says what went wrong (see `EXPLAINED_FAILURE_CHARS`): only such
   * failures, repeated word for word, are evidence that changing the arguments changed nothing.
   */
  explainedFailure?: true;
  /**
   * The result's near-duplicate evidence, computed on the first call (then kept): only the
   * opt-in near-duplicate detectors read it, so a history that does not keep it never pays for it.
   */
  similarity?: () => SimilarityEvidence;
}

/** What the near-duplicate detectors compare of a result (each absent when it does not apply). */
export interface SimilarityEvidence {
  /**
   * A 52-bit sketch of the result's text (one bit per min-hash of its word shingles, numbers
   * masked); absent for an empty or very large text.
   */
  readonly resultSketch?: number;
  /** A 31-bit digest of the text's tokens with numbers and whitespace masked (equal: the same text but for numbers). */
  readonly resultShape?: number;
}

/** A tool call as the engine sees it: everything the detectors and the history need to know about it. */
export interface ToolCallSignature {
  /** Normalised tool name. */
  readonly toolName: string;
  /** `<toolName>:<digest of normalised params>`. */
  readonly argsHash: string;
  /** OpenClaw's known polls: `command_status`, `process` with action `poll` / `log`, and `wait`. */
  readonly knownPoll: boolean;
  /** For a `write` with a path: the digest of its target, for same-target write churn. */
  readonly mutationTargetHash?: string;
  /** For the meta-tool `tool_call`: its typed-error family `tool_call:<inner id>` (other tools: their name). */
  readonly failureFamily?: string;
}

/**
 * What a record keeps of an outcome besides its hash: the facts the newer detectors read (an
 * unknown tool's name, an outcome kind, a failure identity…), each present only when known.
 * Most outcomes have none; a loop veto is the `tool-loop-veto` kind without a hash.
 */
export interface OutcomeFacts {
  readonly unknownToolName?: string;
  readonly outcomeKind?: OutcomeKind;
  readonly failureIdentityHash?: string;
  readonly noProgress?: true;
  readonly mutationTargetHash?: string;
  readonly typedError?: string;
  readonly explainedFailure?: true;
  readonly resultSketch?: number;
  readonly resultShape?: number;
}

/** One entry of a run's tool-call history, as OpenClaw's history records it (absent fields omitted). */
export interface ToolCallRecord extends OutcomeFacts {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId?: string;
  readonly runId?: string;
  readonly resultHash?: string;
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
  /** `argument_churn` (and warnings issued while churn is active): the run shows activity without progress. */
  readonly livenessSignal?: 'argument_churn';
  /**
   * The signatures (`argsHash`) of the calls that make up the loop, oldest member first: the
   * history records carrying them are the loop's evidence (the calls an evidence span links to).
   * Absent: the loop is the verdict's own call signature and, for `ping_pong`, `pairedSignature`.
   */
  readonly loopSignatures?: readonly string[];
  /** For a cycle of calls (A→B→C→A…): its period, the number of distinct calls in it. */
  readonly period?: number;
  /**
   * For a warning compared with a step of its own detector (the opt-in detectors', the unknown
   * tool's), that step: warning suppression buckets its count by it instead of `warningThreshold`.
   */
  readonly threshold?: number;
}

/** The answer to "may this call run?" */
export interface LoopCheck {
  /** The detector verdict, when one matched (suppressed warnings included). */
  readonly verdict?: LoopVerdict;
  /** Whether the verdict is to be surfaced: every critical, and warnings that pass suppression. */
  readonly emit: boolean;
  /** True for a critical verdict: the call must not run; it is recorded as a veto (unless it had already run, see `LoopRun.judge`). */
  readonly blocked: boolean;
  /**
   * While argument churn is active in the run: when it became active (the run's clock, ms).
   * Ordinary tool activity does not reset it; a novel argument or a different result does.
   */
  readonly churnActiveSince?: number;
  /** While argument churn is active: how long it has been (the run's clock, ms; its liveness clock). */
  readonly churnActiveMs?: number;
  /**
   * With a verdict: tokens the run spent inside the loop (the usage its model calls reported
   * between the loop's first member call and this call); absent when no usage was reported.
   */
  readonly wastedTokens?: number;
  /** With a verdict: time from the loop's first member call to this call (the run's clock, ms). */
  readonly wastedMs?: number;
}
