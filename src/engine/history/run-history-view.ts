import { identicalCallsOf } from './identical-calls.js';
import type { InFlightCall } from './in-flight-call.js';
import { redundantCallsOf } from './redundant-calls.js';
import { resultCycleOf } from './result-cycle.js';
import { isVeto, recordsOf, type RunLog } from './run-log.js';
import type {
  ArgumentChurn,
  IdenticalCalls,
  NoProgressStreak,
  PingPongCandidate,
  RedundantCalls,
  ResultCycle,
  RunHistory,
  SimilarOutcomes,
  TypedErrorRepeat,
  UnknownToolStreak,
} from './run-history.js';
import { signatureKey } from './signature-key.js';
import { similarOutcomesOf } from './similar-outcomes.js';

/** Calls of a stable churn variant needed before it counts (OpenClaw's 3). */
const MIN_STABLE_CALLS_PER_VARIANT = 3;

const NO_CHURN: ArgumentChurn = Object.freeze({ count: 0, variantCount: 0 });
/** The answer of most queries on unique calls, shared: one object each would be garbage at once. */
const NONE: { readonly count: 0 } = Object.freeze({ count: 0 });

/** {@link RunHistory} over a run's log, made for one call's check. */
export class RunHistoryView implements RunHistory {
  /**
   * The call whose records were last found, those records (newest first) and, once computed,
   * their no-progress streak: most detectors ask about the call being judged.
   */
  private foundTool: string | undefined = undefined;
  private foundArgs: string | undefined = undefined;
  private found: readonly number[] = [];
  private streak: NoProgressStreak | undefined = undefined;
  private terminal: { argsHash: string; streak: NoProgressStreak } | undefined = undefined;

  /**
   * @param inFlight Earlier members of the batch being admitted, oldest first: each counts as a
   *   no-progress veto newer than every record (a later sibling must assume it makes no progress).
   */
  constructor(
    private readonly log: RunLog | undefined,
    private readonly inFlight: readonly InFlightCall[] = [],
  ) {}

  noProgressStreak(argsHash: string, toolName: string): NoProgressStreak {
    this.find(toolName, argsHash);
    return (this.streak ??= this.computeNoProgressStreak(toolName, argsHash));
  }

  /** Finds the records of a call's signature, unless they are the ones last found. */
  private find(toolName: string, argsHash: string): void {
    if (argsHash === this.foundArgs && toolName === this.foundTool) return;
    this.found = this.log ? recordsOf(this.log, { toolName, argsHash }) : [];
    this.foundTool = toolName;
    this.foundArgs = argsHash;
    this.streak = undefined;
  }

  repeatInARow(argsHash: string, toolName: string): NoProgressStreak {
    const key = signatureKey(toolName, argsHash);
    // Batch siblings are newer than every record: one of another signature ends the streak at once.
    for (const sibling of this.inFlight) if (signatureKey(sibling.toolName, sibling.argsHash) !== key) return NONE;
    const inARow: number[] = [];
    const log = this.log;
    if (log) for (let s = log.end - 1; s >= log.first && log.keyOf(s) === key; s -= 1) inARow.push(s);
    return this.streakOver(inARow, this.inFlight.length);
  }

  private computeNoProgressStreak(toolName: string, argsHash: string): NoProgressStreak {
    const key = this.inFlight.length > 0 ? signatureKey(toolName, argsHash) : '';
    let siblings = 0;
    for (const sibling of this.inFlight) if (signatureKey(sibling.toolName, sibling.argsHash) === key) siblings += 1;
    return this.streakOver(this.found, siblings);
  }

  /**
   * The no-progress streak over records of one signature, newest first, behind `siblings` calls
   * of it in flight (vetoes newer than every record). Vetoes are provisional until an older
   * concrete outcome anchors them; a newer changed outcome ends the scan before the older vetoes
   * are added. With no concrete outcome at all, the recorded vetoes are the streak (the siblings
   * alone are none).
   */
  private streakOver(records: readonly number[], siblings: number): NoProgressStreak {
    const log = this.log;
    let latestResultHash: string | undefined;
    let count = 0;
    let vetoes = siblings;
    if (log) {
      for (const s of records) {
        const resultHash = log.resultHash(s);
        if (resultHash === undefined) {
          if (isVeto(log, s)) vetoes += 1;
          continue;
        }
        if (latestResultHash === undefined) latestResultHash = resultHash;
        else if (resultHash !== latestResultHash) break;
        count += vetoes + 1;
        vetoes = 0;
      }
    }
    if (latestResultHash !== undefined) return { count, latestResultHash };
    return vetoes > siblings ? { count: vetoes - siblings } : NONE;
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
    const log = this.log;
    let vetoes = 0;
    for (const sibling of this.inFlight) {
      if (sibling.toolName !== 'exec') return NONE;
      vetoes += 1;
    }
    if (!log) return NONE;
    let anchorHash: string | undefined;
    let anchorIdentity: string | undefined;
    let crossed = false;
    let count = 0;
    for (let s = log.end - 1; s >= log.first; s -= 1) {
      if (log.toolName(s) !== 'exec') break;
      const resultHash = log.resultHash(s);
      const facts = log.facts(s);
      if (resultHash === undefined) {
        if (isVeto(log, s)) vetoes += 1;
        continue;
      }
      if (facts?.outcomeKind !== 'terminal-exec-failure') break;
      const recordArgs = log.argsHash(s);
      if (anchorHash === undefined) {
        anchorHash = resultHash;
        anchorIdentity = facts.failureIdentityHash;
        crossed = recordArgs !== argsHash;
      } else {
        if (crossed && recordArgs === argsHash) break;
        if (recordArgs !== argsHash) crossed = true;
        const sameFailure = facts.failureIdentityHash !== undefined && facts.failureIdentityHash === anchorIdentity;
        if (resultHash !== anchorHash && !sameFailure) break;
      }
      count += vetoes + 1;
      vetoes = 0;
    }
    return anchorHash === undefined ? NONE : { count, latestResultHash: anchorHash, acrossArguments: true };
  }

  recentCount(argsHash: string, toolName: string): number {
    this.find(toolName, argsHash);
    return this.found.length;
  }

  unknownToolStreak(toolName: string): UnknownToolStreak {
    const log = this.log;
    if (!log) return NONE;
    let unknownToolName: string | undefined;
    let count = 0;
    for (let s = log.end - 1; s >= log.first; s -= 1) {
      const name = log.facts(s)?.unknownToolName;
      if (name === undefined || log.toolName(s) !== toolName) break;
      if (unknownToolName === undefined) unknownToolName = name;
      else if (name !== unknownToolName) break;
      count += 1;
    }
    return unknownToolName === undefined ? NONE : { count, unknownToolName };
  }

  pingPong(argsHash: string): PingPongCandidate {
    const log = this.log;
    if (!log || log.end - log.first < 2 || !this.hasArgsHash(log, log.end - 2, argsHash)) return NONE;
    const tail = alternationTail(log);
    if (tail < 2) return NONE;
    const last = log.end - 1;
    return { count: tail + 1, pairedToolName: log.toolName(last), pairedSignature: log.argsHash(last) };
  }

  pingPongNoProgressEvidence(candidate: PingPongCandidate, options: { readonly strict?: boolean } = {}): boolean {
    const strict = options.strict === true;
    const log = this.log;
    const tail = candidate.count - 1;
    if (!log || tail < (strict ? 4 : 2)) return false;
    let lastSideHash: string | undefined;
    let otherSideHash: string | undefined;
    for (let i = 0; i < tail; i += 1) {
      const seq = log.end - 1 - i;
      if (seq < log.first) return false;
      if (strict && log.facts(seq)?.outcomeKind === 'write-mutation') return false;
      const resultHash = log.resultHash(seq);
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
   * Whether record `seq` has this args hash. When it is the hash of the call last found and names
   * its tool (as every hash this package computes does), the records that have it are those found:
   * no string is rebuilt to be compared.
   */
  private hasArgsHash(log: RunLog, seq: number, argsHash: string): boolean {
    if (argsHash === this.foundArgs && signatureKey(this.foundTool!, argsHash) === argsHash)
      return this.found.includes(seq);
    return log.argsHash(seq) === argsHash;
  }

  /**
   * OpenClaw's stable argument churn: the newest records of `toolName` (stopping at another
   * tool or at an outcome that is not no-progress; hashless records skipped), grouped by
   * arguments, each group with one result. It holds when at least two groups have 3 or more
   * calls, every scanned call is in such a group, they all share one result, and the current
   * arguments are one of them; `count` is then the number of scanned calls.
   */
  argumentChurn(toolName: string, argsHash: string): ArgumentChurn {
    const log = this.log;
    if (!log) return NO_CHURN;
    for (const sibling of this.inFlight) if (sibling.toolName !== toolName) return NO_CHURN;
    // Made at the first record that joins a group: most calls end the scan at the newest record.
    let groups: Map<string, { resultHash: string; count: number }> | undefined;
    for (let s = log.end - 1; s >= log.first; s -= 1) {
      if (log.toolName(s) !== toolName) break;
      if (!log.hasResultHash(s)) continue;
      // Decided before the hash is read: a deferred success is hashed only if it is compared.
      if (!log.isNoProgressResult(s)) break;
      const resultHash = log.resultHash(s)!;
      const args = log.argsHash(s);
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
    const log = this.log;
    if (!log || this.inFlight.length > 0) return NO_CHURN;
    // Made at the first write to the target: most calls end the scan at the newest record.
    let variants: string[] | undefined;
    let seen: Map<string, number> | undefined;
    for (let s = log.end - 1; s >= log.first; s -= 1) {
      // Kind and target only: a deferred result is not hashed for them.
      if (
        log.toolName(s) !== 'write' ||
        log.facts(s)?.outcomeKind !== 'write-mutation' ||
        log.facts(s)?.mutationTargetHash !== mutationTargetHash
      )
        break;
      const args = log.argsHash(s);
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
    const log = this.log;
    if (!log) return signatures;
    for (let s = log.end - 1, n = 0; s >= log.first && n < limit; s -= 1) {
      if (!log.hasResultHash(s)) continue;
      signatures.add(log.keyOf(s));
      n += 1;
    }
    return signatures;
  }

  newestArgsHashes(count: number): readonly string[] {
    const log = this.log;
    if (!log) return [];
    const from = Math.max(log.first, log.end - count);
    const hashes = new Set<string>();
    for (let s = from; s < log.end; s += 1) hashes.add(log.argsHash(s));
    return [...hashes];
  }

  typedErrorArgsHashes(family: string): readonly string[] {
    const log = this.log;
    if (!log || log.typedErrors === 0) return [];
    const identity = this.newestTypedError(family);
    if (identity === undefined) return [];
    const hashes = new Set<string>();
    for (let s = log.first; s < log.end; s += 1) if (log.facts(s)?.typedError === identity) hashes.add(log.argsHash(s));
    return [...hashes];
  }

  resultCycle(argsHash: string, toolName: string, criticalLaps: number): ResultCycle {
    return resultCycleOf(this.log, signatureKey(toolName, argsHash), criticalLaps);
  }

  identicalCalls(argsHash: string, toolName: string, percent: number): IdenticalCalls {
    return identicalCallsOf(this.log, signatureKey(toolName, argsHash), percent);
  }

  similarOutcomes(toolName: string): SimilarOutcomes {
    return similarOutcomesOf(this.log, toolName);
  }

  redundantCalls(argsHash: string, toolName: string): RedundantCalls {
    return redundantCallsOf(this.log, signatureKey(toolName, argsHash), this.inFlight);
  }

  typedErrorRepeat(family: string): TypedErrorRepeat {
    const log = this.log;
    if (!log || log.typedErrors === 0) return NONE;
    const identity = this.newestTypedError(family);
    if (identity === undefined) return NONE;
    let count = 0;
    for (let s = log.end - 1; s >= log.first; s -= 1) if (log.facts(s)?.typedError === identity) count += 1;
    return { count, code: identity.slice(identity.lastIndexOf(':') + 1) };
  }

  /** The newest typed-error identity (`<family>:<CODE>`) of a failure family. */
  private newestTypedError(family: string): string | undefined {
    const log = this.log;
    if (!log) return undefined;
    for (let s = log.end - 1; s >= log.first; s -= 1) {
      const typedError = log.facts(s)?.typedError;
      if (typedError !== undefined && typedErrorFamily(typedError) === family) return typedError;
    }
    return undefined;
  }
}

/** The family of a stored typed-error identity `<family>:<CODE>` (codes have no colon; families may). */
function typedErrorFamily(typedError: string): string {
  return typedError.slice(0, typedError.lastIndexOf(':'));
}

/**
 * The length of the alternation of two args hashes that ends at the newest record: 1 when the
 * two newest are equal, else 2 and one more for each older record that repeats the one two after it.
 */
function alternationTail(log: RunLog): number {
  if (log.sameArgs(log.end - 1, log.end - 2)) return 1;
  let tail = 2;
  for (let s = log.end - 3; s >= log.first && log.sameArgs(s, s + 2); s -= 1) tail += 1;
  return tail;
}
