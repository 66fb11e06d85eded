import { identicalCallsOf, type IdenticalCalls } from './identical-calls.js';
import type { InFlightCall } from './in-flight-call.js';
import { signatureKey, type ScopeLog } from './record-ring.js';
import { redundantCallsOf, type RedundantCalls } from './redundant-calls.js';
import { resultCycleOf, type ResultCycle } from './result-cycle.js';
import { similarOutcomesOf, type SimilarOutcomes } from './similar-outcomes.js';

export type { IdenticalCalls } from './identical-calls.js';
export type { RedundantCalls } from './redundant-calls.js';
export type { ResultCycle } from './result-cycle.js';
export type { SimilarOutcomes } from './similar-outcomes.js';

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

/** Calls of a stable churn variant needed before it counts (OpenClaw's 3). */
const MIN_STABLE_CALLS_PER_VARIANT = 3;

const NO_CHURN: ArgumentChurn = Object.freeze({ count: 0, variantCount: 0 });
/** The answer of most queries on unique calls, shared: one object each would be garbage at once. */
const NONE: { readonly count: 0 } = Object.freeze({ count: 0 });

/**
 * What OpenClaw's detectors derive from one run scope's records, computed before the
 * current call is recorded. This is the input of every detector.
 */
export interface ScopedHistory {
  /**
   * Hashed records of this signature, newest first, sharing the newest one's result hash.
   * A signature is the tool and its args hash ({@link signatureKey}). Loop vetoes (and calls
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
   * failure identity (see the rules on {@link ScopeView.terminalExecFailureStreak}).
   */
  terminalExecFailureStreak(argsHash: string): NoProgressStreak;
  /** Records of this signature in scope, pending or not (`toolName` as for `noProgressStreak`). */
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
  pingPongNoProgressEvidence(candidate: PingPongCandidate, strict?: boolean): boolean;
  /** Stable argument churn of `toolName` that a call with `argsHash` would continue. */
  argumentChurn(toolName: string, argsHash: string): ArgumentChurn;
  /** Distinct argument variants written to one target with no verification in between (0 when `argsHash` is one of them). */
  writeTargetChurn(argsHash: string, mutationTargetHash: string): ArgumentChurn;
  /** The newest typed-error identity of a failure family, and how many records in scope carry it. */
  typedErrorRepeat(family: string): TypedErrorRepeat;
  /** The (tool, args) signatures of the newest `limit` hashed records (the post-compaction guard's baseline). */
  recentSignatures(limit: number): ReadonlySet<string>;
  /**
   * The distinct args hashes of the newest `count` records in scope, oldest first: the members
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
   * The calls in scope (and in flight) that asked again for an answer the run already had, and
   * whether a call with this signature would too (its answer is known and still current).
   */
  redundantCalls(argsHash: string, toolName: string): RedundantCalls;
}

export class ScopeView implements ScopedHistory {
  /** The signature of the last streak computed, and that streak (several detectors ask for the call's own). */
  private streakKey: string | undefined = undefined;
  private streak: NoProgressStreak = NONE;
  private terminal: { argsHash: string; streak: NoProgressStreak } | undefined = undefined;

  /**
   * @param inFlight Earlier members of the batch being admitted, oldest first: each counts as a
   *   no-progress veto newer than every record (a later sibling must assume it makes no progress).
   */
  constructor(
    private readonly scope: ScopeLog | undefined,
    private readonly inFlight: readonly InFlightCall[] = [],
  ) {}

  noProgressStreak(argsHash: string, toolName: string): NoProgressStreak {
    const key = this.keyOf(toolName, argsHash);
    if (this.streakKey !== key) {
      this.streak = this.computeNoProgressStreak(key);
      this.streakKey = key;
    }
    return this.streak;
  }

  /** The signature key of a call (see {@link signatureKey}), from the scope's cache when there is one. */
  private keyOf(toolName: string, argsHash: string): string {
    return this.scope ? this.scope.keyFor(toolName, argsHash) : signatureKey(toolName, argsHash);
  }

  repeatInARow(argsHash: string, toolName: string): NoProgressStreak {
    const key = this.keyOf(toolName, argsHash);
    // Batch siblings are newer than every record: one of another signature ends the streak at once.
    let vetoes = 0;
    for (const sibling of this.inFlight) {
      if (signatureKey(sibling.toolName, sibling.argsHash) !== key) return NONE;
      vetoes += 1;
    }
    const projected = vetoes;
    const scope = this.scope;
    let latestResultHash: string | undefined;
    let count = 0;
    if (scope) {
      for (let s = scope.end - 1; s >= scope.first && scope.keyOf(s) === key; s -= 1) {
        const resultHash = scope.resultHash(s);
        if (resultHash === undefined) {
          if (scope.outcomeKind(s) === 'tool-loop-veto') vetoes += 1;
          continue;
        }
        if (latestResultHash === undefined) latestResultHash = resultHash;
        else if (resultHash !== latestResultHash) break;
        count += vetoes + 1;
        vetoes = 0;
      }
    }
    if (latestResultHash !== undefined) return { count, latestResultHash };
    return vetoes > projected ? { count: vetoes - projected } : NONE;
  }

  private computeNoProgressStreak(key: string): NoProgressStreak {
    const scope = this.scope;
    let latestResultHash: string | undefined;
    let count = 0;
    // Vetoes are provisional until an older concrete outcome anchors them; a newer changed
    // outcome ends the scan before the older vetoes are added.
    let projected = 0;
    for (const sibling of this.inFlight) if (signatureKey(sibling.toolName, sibling.argsHash) === key) projected += 1;
    let vetoes = projected;
    if (scope) {
      for (let s = scope.newestOf(key), n = scope.countOf(key); n > 0; n -= 1, s = scope.olderOf(s, key)) {
        const resultHash = scope.resultHash(s);
        if (resultHash === undefined) {
          if (scope.outcomeKind(s) === 'tool-loop-veto') vetoes += 1;
          continue;
        }
        if (latestResultHash === undefined) latestResultHash = resultHash;
        else if (resultHash !== latestResultHash) break;
        count += vetoes + 1;
        vetoes = 0;
      }
    }
    // No concrete outcome at all: the recorded vetoes are the streak (a batch's siblings alone are none).
    if (latestResultHash !== undefined) return { count, latestResultHash };
    return vetoes > projected ? { count: vetoes - projected } : NONE;
  }

  /**
   * Scans newest to oldest: stops at the first record of another tool; buffers vetoes (and
   * in-flight `exec` siblings) as pending; skips hashless records; stops at the first `exec`
   * outcome that is no terminal failure. The first terminal failure is the anchor; once the
   * scan has passed other arguments, meeting the current ones again ends it (an older tail).
   * A record continues the streak with the anchor's result hash or failure identity.
   */
  terminalExecFailureStreak(argsHash: string): NoProgressStreak {
    if (this.terminal?.argsHash !== argsHash)
      this.terminal = { argsHash, streak: this.computeTerminalExecFailureStreak(argsHash) };
    return this.terminal.streak;
  }

  private computeTerminalExecFailureStreak(argsHash: string): NoProgressStreak {
    const scope = this.scope;
    let vetoes = 0;
    for (const sibling of this.inFlight) {
      if (sibling.toolName !== 'exec') return NONE;
      vetoes += 1;
    }
    if (!scope) return NONE;
    let anchorHash: string | undefined;
    let anchorIdentity: string | undefined;
    let crossed = false;
    let count = 0;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      if (!scope.isToolName(s, 'exec')) break;
      const resultHash = scope.resultHash(s);
      const details = scope.details(s);
      if (resultHash === undefined) {
        if (details?.outcomeKind === 'tool-loop-veto') vetoes += 1;
        continue;
      }
      if (details?.outcomeKind !== 'terminal-exec-failure') break;
      const recordArgs = scope.argsHash(s);
      if (anchorHash === undefined) {
        anchorHash = resultHash;
        anchorIdentity = details.failureIdentityHash;
        crossed = recordArgs !== argsHash;
      } else {
        if (crossed && recordArgs === argsHash) break;
        if (recordArgs !== argsHash) crossed = true;
        const sameFailure = details.failureIdentityHash !== undefined && details.failureIdentityHash === anchorIdentity;
        if (resultHash !== anchorHash && !sameFailure) break;
      }
      count += vetoes + 1;
      vetoes = 0;
    }
    return anchorHash === undefined ? NONE : { count, latestResultHash: anchorHash, acrossArguments: true };
  }

  recentCount(argsHash: string, toolName: string): number {
    return this.scope?.countOf(this.keyOf(toolName, argsHash)) ?? 0;
  }

  unknownToolStreak(toolName: string): UnknownToolStreak {
    const scope = this.scope;
    if (!scope) return NONE;
    let unknownToolName: string | undefined;
    let count = 0;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      const name = scope.unknownToolName(s);
      if (name === undefined || !scope.isToolName(s, toolName)) break;
      if (unknownToolName === undefined) unknownToolName = name;
      else if (name !== unknownToolName) break;
      count += 1;
    }
    return unknownToolName === undefined ? NONE : { count, unknownToolName };
  }

  pingPong(argsHash: string): PingPongCandidate {
    const scope = this.scope;
    if (!scope || scope.alternationTail < 2) return NONE;
    const last = scope.end - 1;
    if (!scope.hasArgsHash(last - 1, argsHash)) return NONE;
    return {
      count: scope.alternationTail + 1,
      pairedToolName: scope.toolName(last),
      pairedSignature: scope.argsHash(last),
    };
  }

  pingPongNoProgressEvidence(candidate: PingPongCandidate, strict = false): boolean {
    const scope = this.scope;
    const tail = candidate.count - 1;
    if (!scope || tail < (strict ? 4 : 2)) return false;
    let lastSideHash: string | undefined;
    let otherSideHash: string | undefined;
    for (let i = 0; i < tail; i += 1) {
      const seq = scope.end - 1 - i;
      if (seq < scope.first) return false;
      if (strict && scope.outcomeKind(seq) === 'write-mutation') return false;
      const resultHash = scope.resultHash(seq);
      if (resultHash === undefined) return false;
      if (i % 2 === 0) {
        if (lastSideHash === undefined) lastSideHash = resultHash;
        else if (resultHash !== lastSideHash) return false;
      } else if (otherSideHash === undefined) otherSideHash = resultHash;
      else if (resultHash !== otherSideHash) return false;
    }
    return lastSideHash !== undefined && otherSideHash !== undefined;
  }

  /**
   * OpenClaw's stable argument churn: the newest records of `toolName` (stopping at another
   * tool or at an outcome that is not no-progress; hashless records skipped), grouped by
   * arguments, each group with one result. It holds when at least two groups have 3 or more
   * calls, every scanned call is in such a group, they all share one result, and the current
   * arguments are one of them; `count` is then the number of scanned calls.
   */
  argumentChurn(toolName: string, argsHash: string): ArgumentChurn {
    const scope = this.scope;
    if (!scope) return NO_CHURN;
    for (const sibling of this.inFlight) if (sibling.toolName !== toolName) return NO_CHURN;
    // Made at the first record that joins a group: most calls end the scan at the newest record.
    let groups: Map<string, { resultHash: string; count: number }> | undefined;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      if (!scope.isToolName(s, toolName)) break;
      if (!scope.hasResultHash(s)) continue;
      // Decided before the hash is read: a deferred success is hashed only if it is compared.
      if (!scope.isNoProgressResult(s)) break;
      const resultHash = scope.resultHash(s)!;
      const args = scope.argsHash(s);
      groups ??= new Map();
      const group = groups.get(args);
      if (group && group.resultHash !== resultHash) break;
      groups.set(args, { resultHash, count: (group?.count ?? 0) + 1 });
    }
    if (groups === undefined) return NO_CHURN;
    let count = 0;
    let stableCount = 0;
    let variants = 0;
    let stableResult: string | undefined;
    let oneStableResult = true;
    for (const group of groups.values()) {
      count += group.count;
      if (group.count < MIN_STABLE_CALLS_PER_VARIANT) continue;
      stableCount += group.count;
      variants += 1;
      if (stableResult === undefined) stableResult = group.resultHash;
      else if (group.resultHash !== stableResult) oneStableResult = false;
    }
    const churns =
      variants > 1 &&
      stableCount === count &&
      oneStableResult &&
      (groups.get(argsHash)?.count ?? 0) >= MIN_STABLE_CALLS_PER_VARIANT;
    return churns ? { count, variantCount: variants } : NO_CHURN;
  }

  /**
   * OpenClaw's same-target write churn: the contiguous newest `write` records that changed
   * `mutationTargetHash`, up to and including the newer occurrence of a repeated variant;
   * `count` is the number of distinct variants, 0 when the current arguments are among them.
   */
  writeTargetChurn(argsHash: string, mutationTargetHash: string): ArgumentChurn {
    const scope = this.scope;
    if (!scope || this.inFlight.length > 0) return NO_CHURN;
    // Made at the first write to the target: most calls end the scan at the newest record.
    let variants: string[] | undefined;
    let seen: Map<string, number> | undefined;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      // Kind and target only: a deferred result is not hashed for them.
      if (
        !scope.isToolName(s, 'write') ||
        scope.outcomeKind(s) !== 'write-mutation' ||
        scope.mutationTargetHash(s) !== mutationTargetHash
      )
        break;
      const args = scope.argsHash(s);
      variants ??= [];
      seen ??= new Map();
      const repeatedAt = seen.get(args);
      if (repeatedAt !== undefined) {
        variants.length = repeatedAt + 1;
        break;
      }
      seen.set(args, variants.length);
      variants.push(args);
    }
    if (variants === undefined || variants.includes(argsHash)) return NO_CHURN;
    return { count: variants.length, variantCount: variants.length };
  }

  recentSignatures(limit: number): ReadonlySet<string> {
    const signatures = new Set<string>();
    const scope = this.scope;
    if (!scope) return signatures;
    for (let s = scope.end - 1, n = 0; s >= scope.first && n < limit; s -= 1) {
      if (!scope.hasResultHash(s)) continue;
      signatures.add(scope.keyOf(s));
      n += 1;
    }
    return signatures;
  }

  newestArgsHashes(count: number): readonly string[] {
    const scope = this.scope;
    if (!scope) return [];
    const from = Math.max(scope.first, scope.end - count);
    const hashes = new Set<string>();
    for (let s = from; s < scope.end; s += 1) hashes.add(scope.argsHash(s));
    return [...hashes];
  }

  typedErrorArgsHashes(family: string): readonly string[] {
    const scope = this.scope;
    if (!scope || scope.typedErrors === 0) return [];
    const identity = this.newestTypedError(family);
    if (identity === undefined) return [];
    const hashes = new Set<string>();
    for (let s = scope.first; s < scope.end; s += 1)
      if (scope.typedError(s) === identity) hashes.add(scope.argsHash(s));
    return [...hashes];
  }

  resultCycle(argsHash: string, toolName: string, criticalLaps: number): ResultCycle {
    return resultCycleOf(this.scope, this.keyOf(toolName, argsHash), criticalLaps);
  }

  identicalCalls(argsHash: string, toolName: string, percent: number): IdenticalCalls {
    return identicalCallsOf(this.scope, this.keyOf(toolName, argsHash), percent);
  }

  similarOutcomes(toolName: string): SimilarOutcomes {
    return similarOutcomesOf(this.scope, toolName);
  }

  redundantCalls(argsHash: string, toolName: string): RedundantCalls {
    return redundantCallsOf(this.scope, this.keyOf(toolName, argsHash), this.inFlight);
  }

  typedErrorRepeat(family: string): TypedErrorRepeat {
    const scope = this.scope;
    if (!scope || scope.typedErrors === 0) return NONE;
    const identity = this.newestTypedError(family);
    if (identity === undefined) return NONE;
    let count = 0;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) if (scope.typedError(s) === identity) count += 1;
    return { count, code: identity.slice(identity.lastIndexOf(':') + 1) };
  }

  /** The newest typed-error identity (`<family>:<CODE>`) of a failure family in scope. */
  private newestTypedError(family: string): string | undefined {
    const scope = this.scope;
    if (!scope) return undefined;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      const typedError = scope.typedError(s);
      if (typedError !== undefined && typedErrorFamily(typedError) === family) return typedError;
    }
    return undefined;
  }
}

/** The family of a stored typed-error identity `<family>:<CODE>` (codes have no colon; families may). */
function typedErrorFamily(typedError: string): string {
  return typedError.slice(0, typedError.lastIndexOf(':'));
}
