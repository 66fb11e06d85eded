import { RingQueue } from './ring-queue.js';
import type { ToolCallRecord } from './types.js';

/** Trims a run id; empty means "no run id" (spec §b.1). */
export function normalizeRunId(runId: string | undefined): string | undefined {
  const trimmed = typeof runId === 'string' ? runId.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

/**
 * One history entry. A class with every field always present (possibly `undefined`) keeps
 * all records on one compact hidden class; `delete` would turn each into a dictionary-mode
 * object several times larger (DESIGN §5: memory is bounded, and it is per record).
 */
class HistoryRecord {
  resultHash: string | undefined = undefined;
  unknownToolName: string | undefined = undefined;
  /** The next older record of the same signature in this scope (see {@link Scope.bySignature}). */
  olderSame: HistoryRecord | undefined;
  /** On the newest record of a signature: how many records of that signature are in scope. */
  sameCount: number;

  constructor(
    readonly toolName: string,
    readonly argsHash: string,
    readonly toolCallId: string | undefined,
    readonly runId: string | undefined,
    readonly timestamp: number,
    olderSame: HistoryRecord | undefined,
  ) {
    this.olderSame = olderSame;
    this.sameCount = olderSame === undefined ? 1 : olderSame.sameCount + 1;
  }

  /** The public shape: absent fields omitted (spec §b.1). */
  toRecord(): ToolCallRecord {
    const record: { -readonly [K in keyof ToolCallRecord]: ToolCallRecord[K] } = { toolName: this.toolName, argsHash: this.argsHash, timestamp: this.timestamp };
    if (this.toolCallId !== undefined) record.toolCallId = this.toolCallId;
    if (this.runId !== undefined) record.runId = this.runId;
    if (this.resultHash !== undefined) record.resultHash = this.resultHash;
    if (this.unknownToolName !== undefined) record.unknownToolName = this.unknownToolName;
    return record;
  }
}

/**
 * Per-run-scope indexes, maintained as records enter and leave the shared window.
 * `bySignature` maps an args hash to its newest record; older records of the signature are
 * reached through `olderSame`, and the newest record's `sameCount` says how many of the chain
 * are still in scope (an evicted record is always the oldest of its signature). A chain of
 * links instead of one queue per signature saves an object and an array per signature.
 */
interface Scope {
  readonly records: RingQueue<HistoryRecord>;
  readonly bySignature: Map<string, HistoryRecord>;
  /** Length of the alternation tail ending at the newest record (spec §b.4 pingPong step 3). */
  alternationTail: number;
}

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
 * The derived quantities of spec §b.4 over one run scope's records, computed before the
 * current call is recorded. This is the input of every detector.
 */
export interface ScopedHistory {
  /** Hashed records of this signature, newest first, sharing the newest one's result hash. */
  noProgressStreak(argsHash: string): NoProgressStreak;
  /** Records of this signature in scope, pending or not. */
  recentCount(argsHash: string): number;
  /** Consecutive newest records of `toolName` sharing one extracted unknown-tool name. */
  unknownToolStreak(toolName: string): UnknownToolStreak;
  /** The alternation that a call with `argsHash` would continue. */
  pingPong(argsHash: string): PingPongCandidate;
  /** Whether the alternation tail (the newest `count - 1` records) shows no progress (step 5). */
  pingPongNoProgressEvidence(candidate: PingPongCandidate): boolean;
}

/**
 * One session's tool-call history (spec §b.1, §b.3): a single window shared by all runs,
 * trimmed to `historySize` before run filtering, with per-run indexes so that detection
 * over a run's view does not rescan the window.
 */
export class ToolCallHistory {
  private readonly window = new RingQueue<HistoryRecord>();
  private readonly scopes = new Map<string, Scope>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Number of records in the shared window. */
  get size(): number {
    return this.window.length;
  }

  /** The records, oldest first (a copy, for inspection). */
  records(): ToolCallRecord[] {
    return this.window.toArray().map((record) => record.toRecord());
  }

  /** The view of one run scope (`undefined` or blank = the unscoped records). */
  view(runId?: string): ScopedHistory {
    return new ScopeView(this.scopes.get(normalizeRunId(runId) ?? ''));
  }

  /** Appends a pre-call record (spec §b.3 step 1) and trims the window. */
  recordCall(call: { toolName: string; argsHash: string; toolCallId?: string; runId?: string }, historySize: number): void {
    this.append(call.toolName, call.argsHash, call.toolCallId, normalizeRunId(call.runId), historySize);
  }

  /**
   * Attaches an outcome to the newest matching pending record of the same run, call id (when
   * given), tool and args; appends a complete record when none matches (spec §b.3 step 2).
   * Returns the record that holds the outcome.
   */
  recordOutcome(
    outcome: { toolName: string; argsHash: string; toolCallId?: string; runId?: string; resultHash: string; unknownToolName?: string },
    historySize: number,
  ): ToolCallRecord {
    const runId = normalizeRunId(outcome.runId);
    const newest = this.scopes.get(runId ?? '')?.bySignature.get(outcome.argsHash);
    let record = newest;
    for (let i = newest === undefined ? 0 : newest.sameCount; i > 0; i -= 1, record = record!.olderSame) {
      const r = record!;
      if (r.resultHash !== undefined || r.toolName !== outcome.toolName) continue;
      if (outcome.toolCallId !== undefined && r.toolCallId !== outcome.toolCallId) continue;
      r.resultHash = outcome.resultHash;
      r.unknownToolName = outcome.unknownToolName;
      return r.toRecord();
    }
    const appended = this.append(outcome.toolName, outcome.argsHash, outcome.toolCallId, runId, historySize);
    appended.resultHash = outcome.resultHash;
    appended.unknownToolName = outcome.unknownToolName;
    return appended.toRecord();
  }

  private append(toolName: string, argsHash: string, toolCallId: string | undefined, runId: string | undefined, historySize: number): HistoryRecord {
    const key = runId ?? '';
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { records: new RingQueue(), bySignature: new Map(), alternationTail: 0 };
      this.scopes.set(key, scope);
    }
    const record = new HistoryRecord(toolName, argsHash, toolCallId, runId, this.now(), scope.bySignature.get(argsHash));
    scope.alternationTail = nextAlternationTail(scope, argsHash);
    scope.records.push(record);
    scope.bySignature.set(argsHash, record);
    this.window.push(record);
    this.trim(historySize);
    return record;
  }

  private trim(historySize: number): void {
    while (this.window.length > historySize) {
      const evicted = this.window.shift()!;
      const key = evicted.runId ?? '';
      const scope = this.scopes.get(key)!;
      scope.records.shift();
      // The evicted record is the oldest of its signature: shorten the chain from its newest end.
      const newest = scope.bySignature.get(evicted.argsHash)!;
      newest.sameCount -= 1;
      if (newest.sameCount === 0) scope.bySignature.delete(evicted.argsHash);
      evicted.olderSame = undefined;
      if (scope.records.length === 0) this.scopes.delete(key);
      else scope.alternationTail = Math.min(scope.alternationTail, scope.records.length);
    }
  }
}

/**
 * The alternation tail after appending a record with `argsHash`: it extends the previous
 * tail when the new record repeats the hash two places back (and differs from the newest),
 * restarts at 2 when it merely differs from the newest, and at 1 otherwise.
 */
function nextAlternationTail(scope: Scope, argsHash: string): number {
  const newest = scope.records.fromNewest(0);
  if (!newest || newest.argsHash === argsHash) return 1;
  const previous = scope.records.fromNewest(1);
  return previous && previous.argsHash === argsHash ? scope.alternationTail + 1 : 2;
}

class ScopeView implements ScopedHistory {
  constructor(private readonly scope: Scope | undefined) {}

  noProgressStreak(argsHash: string): NoProgressStreak {
    const newest = this.scope?.bySignature.get(argsHash);
    let latestResultHash: string | undefined;
    let count = 0;
    let record = newest;
    for (let i = newest === undefined ? 0 : newest.sameCount; i > 0; i -= 1, record = record!.olderSame) {
      const { resultHash } = record!;
      if (resultHash === undefined) continue;
      if (latestResultHash === undefined) latestResultHash = resultHash;
      else if (resultHash !== latestResultHash) break;
      count += 1;
    }
    return latestResultHash === undefined ? { count } : { count, latestResultHash };
  }

  recentCount(argsHash: string): number {
    return this.scope?.bySignature.get(argsHash)?.sameCount ?? 0;
  }

  unknownToolStreak(toolName: string): UnknownToolStreak {
    const records = this.scope?.records;
    if (!records) return { count: 0 };
    let unknownToolName: string | undefined;
    let count = 0;
    for (let i = 0; i < records.length; i += 1) {
      const record = records.fromNewest(i)!;
      if (record.toolName !== toolName || record.unknownToolName === undefined) break;
      if (unknownToolName === undefined) unknownToolName = record.unknownToolName;
      else if (record.unknownToolName !== unknownToolName) break;
      count += 1;
    }
    return unknownToolName === undefined ? { count } : { count, unknownToolName };
  }

  pingPong(argsHash: string): PingPongCandidate {
    const scope = this.scope;
    if (!scope || scope.alternationTail < 2) return { count: 0 };
    const last = scope.records.fromNewest(0)!;
    const other = scope.records.fromNewest(1)!;
    if (argsHash !== other.argsHash) return { count: 0 };
    return { count: scope.alternationTail + 1, pairedToolName: last.toolName, pairedSignature: last.argsHash };
  }

  pingPongNoProgressEvidence(candidate: PingPongCandidate): boolean {
    const records = this.scope?.records;
    const tail = candidate.count - 1;
    if (!records || tail < 2) return false;
    let lastSideHash: string | undefined;
    let otherSideHash: string | undefined;
    for (let i = 0; i < tail; i += 1) {
      const { resultHash } = records.fromNewest(i)!;
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
