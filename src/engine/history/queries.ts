import { signatureKey, type ScopeLog } from './record-ring.js';

/** The outcome of the no-progress scan for one signature. */
export interface NoProgressStreak {
  readonly count: number;
  readonly latestResultHash?: string;
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

/**
 * What OpenClaw's detectors derive from one run scope's records, computed before the
 * current call is recorded. This is the input of every detector.
 */
export interface ScopedHistory {
  /**
   * Hashed records of this signature, newest first, sharing the newest one's result hash.
   * A signature is the tool and its args hash ({@link signatureKey}).
   */
  noProgressStreak(argsHash: string, toolName: string): NoProgressStreak;
  /** Records of this signature in scope, pending or not (`toolName` as for `noProgressStreak`). */
  recentCount(argsHash: string, toolName: string): number;
  /** Consecutive newest records of `toolName` sharing one extracted unknown-tool name. */
  unknownToolStreak(toolName: string): UnknownToolStreak;
  /** The alternation that a call with `argsHash` would continue. */
  pingPong(argsHash: string): PingPongCandidate;
  /** Whether the alternation tail (the newest `count - 1` records) shows no progress (step 5). */
  pingPongNoProgressEvidence(candidate: PingPongCandidate): boolean;
}

export class ScopeView implements ScopedHistory {
  /** The last streak computed (several detectors ask for the call's own). */
  private streak: { key: string; streak: NoProgressStreak } | undefined = undefined;

  constructor(private readonly scope: ScopeLog | undefined) {}

  noProgressStreak(argsHash: string, toolName: string): NoProgressStreak {
    const key = signatureKey(toolName, argsHash);
    if (this.streak?.key !== key) this.streak = { key, streak: this.computeNoProgressStreak(key) };
    return this.streak.streak;
  }

  private computeNoProgressStreak(key: string): NoProgressStreak {
    const scope = this.scope;
    let latestResultHash: string | undefined;
    let count = 0;
    if (scope) {
      for (let s = scope.newestOf(key), n = scope.countOf(key); n > 0; n -= 1, s = scope.olderOf(s, key)) {
        const resultHash = scope.resultHash(s);
        if (resultHash === undefined) continue;
        if (latestResultHash === undefined) latestResultHash = resultHash;
        else if (resultHash !== latestResultHash) break;
        count += 1;
      }
    }
    return latestResultHash === undefined ? { count } : { count, latestResultHash };
  }

  recentCount(argsHash: string, toolName: string): number {
    return this.scope?.countOf(signatureKey(toolName, argsHash)) ?? 0;
  }

  unknownToolStreak(toolName: string): UnknownToolStreak {
    const scope = this.scope;
    if (!scope) return { count: 0 };
    let unknownToolName: string | undefined;
    let count = 0;
    for (let s = scope.end - 1; s >= scope.first; s -= 1) {
      const name = scope.unknownToolName(s);
      if (name === undefined || !scope.isToolName(s, toolName)) break;
      if (unknownToolName === undefined) unknownToolName = name;
      else if (name !== unknownToolName) break;
      count += 1;
    }
    return unknownToolName === undefined ? { count } : { count, unknownToolName };
  }

  pingPong(argsHash: string): PingPongCandidate {
    const scope = this.scope;
    if (!scope || scope.alternationTail < 2) return { count: 0 };
    const last = scope.end - 1;
    if (argsHash !== scope.argsHash(last - 1)) return { count: 0 };
    return {
      count: scope.alternationTail + 1,
      pairedToolName: scope.toolName(last),
      pairedSignature: scope.argsHash(last),
    };
  }

  pingPongNoProgressEvidence(candidate: PingPongCandidate): boolean {
    const scope = this.scope;
    const tail = candidate.count - 1;
    if (!scope || tail < 2) return false;
    let lastSideHash: string | undefined;
    let otherSideHash: string | undefined;
    for (let i = 0; i < tail; i += 1) {
      const seq = scope.end - 1 - i;
      if (seq < scope.first) return false;
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
}
