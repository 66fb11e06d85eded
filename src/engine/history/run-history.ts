import type { IdenticalCalls } from './identical-calls.js';
import type { RedundantCalls } from './redundant-calls.js';
import type { ResultCycle } from './result-cycle.js';
import type { SimilarOutcomes } from './similar-outcomes.js';

export type { IdenticalCalls, RedundantCalls, ResultCycle, SimilarOutcomes };

/** The outcome of the no-progress scan for one signature. */
export interface NoProgressStreak {
  readonly count: number;
  readonly latestResultHash?: string;
  /** The streak is an `exec` terminal-failure streak that spans changing arguments. */
  readonly acrossArguments?: true;
}

/** The unknown-tool streak for one tool. */
export interface UnknownToolStreak {
  readonly count: number;
  readonly unknownToolName?: string;
}

/** The ping-pong alternation the current call would continue, if any. */
export interface PingPongCandidate {
  /** `tail + 1`: the current call included. 0 when the call does not continue an alternation. */
  readonly count: number;
  readonly pairedToolName?: string;
  readonly pairedSignature?: string;
}

/** Argument churn the current call would continue: `count` calls over `variantCount` argument variants (0 = none). */
export interface ArgumentChurn {
  readonly count: number;
  readonly variantCount: number;
}

/** The typed-error identity the current call's family is stuck on. */
export interface TypedErrorRepeat {
  readonly count: number;
  readonly code?: string;
}

/**
 * What OpenClaw's detectors derive from one run's records, computed before the current call is
 * recorded. This is the input of every detector.
 */
export interface RunHistory {
  /**
   * Hashed records of this signature, newest first, sharing the newest one's result hash.
   * A signature is the tool and its args hash (see `signatureKey`). Loop vetoes (and calls
   * still in flight) between them count once an older concrete outcome anchors them; with no
   * concrete outcome at all, the count is the number of vetoes.
   */
  noProgressStreak(argsHash: string, toolName: string): NoProgressStreak;
  /**
   * {@link noProgressStreak} counted back to back: the newest records in a row, all of this
   * signature (any other call ends it), sharing the newest one's result hash (vetoes anchored).
   */
  repeatInARow(argsHash: string, toolName: string): NoProgressStreak;
  /**
   * OpenClaw's `exec` terminal-failure streak across changing arguments: the contiguous
   * newest `exec` records that are terminal failures sharing the newest one's result hash or
   * failure identity (see the rules on `RunHistoryView.terminalExecFailureStreak`).
   */
  terminalExecFailureStreak(argsHash: string): NoProgressStreak;
  /** Records of this signature held, pending or not (`toolName` as for `noProgressStreak`). */
  recentCount(argsHash: string, toolName: string): number;
  /** Consecutive newest records of `toolName` sharing one extracted unknown-tool name. */
  unknownToolStreak(toolName: string): UnknownToolStreak;
  /** The alternation that a call with `argsHash` would continue. */
  pingPong(argsHash: string): PingPongCandidate;
  /**
   * Whether the alternation tail (the newest `count - 1` records) shows no progress (step 5): each
   * side repeats one result hash. `strict`: each side must have repeated it (a side seen once
   * repeats nothing), and a `write` that changed its target in the tail is progress (default
   * false, OpenClaw's rule).
   */
  pingPongNoProgressEvidence(candidate: PingPongCandidate, options?: { readonly strict?: boolean }): boolean;
  /** Stable argument churn of `toolName` that a call with `argsHash` would continue. */
  argumentChurn(toolName: string, argsHash: string): ArgumentChurn;
  /** Distinct argument variants written to one target with no verification in between (0 when `argsHash` is one of them). */
  writeTargetChurn(argsHash: string, mutationTargetHash: string): ArgumentChurn;
  /** The newest typed-error identity of a failure family, and how many records carry it. */
  typedErrorRepeat(family: string): TypedErrorRepeat;
  /** The (tool, args) signatures of the newest `limit` hashed records (the post-compaction guard's baseline). */
  recentSignatures(limit: number): ReadonlySet<string>;
  /**
   * The distinct args hashes of the newest `count` records, oldest first: the members
   * of a loop that a streak across arguments found (asked only once a verdict is reached).
   */
  newestArgsHashes(count: number): readonly string[];
  /** The distinct args hashes of the records carrying the failure family's newest typed error, oldest first. */
  typedErrorArgsHashes(family: string): readonly string[];
  /** The result-repeating cycle of period 2–5 that a call would continue, or that has tripped (`criticalLaps`). */
  resultCycle(argsHash: string, toolName: string, criticalLaps: number): ResultCycle;
  /** The newest identical calls in a row with this signature, and how many of them gained little (`percent` similarity). */
  identicalCalls(argsHash: string, toolName: string, percent: number): IdenticalCalls;
  /** The newest calls of a tool in a row that failed with one explained error, whatever their arguments. */
  similarOutcomes(toolName: string): SimilarOutcomes;
  /**
   * The calls held (and in flight) that asked again for an answer the run already had, and
   * whether a call with this signature would too (its answer is known and still current).
   */
  redundantCalls(argsHash: string, toolName: string): RedundantCalls;
}
