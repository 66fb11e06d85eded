import { RingQueue } from './ring-queue.js';
import type { ToolCallRecord } from './types.js';

/** Trims a run id; empty means "no run id" (spec §b.1). */
export function normalizeRunId(runId: string | undefined): string | undefined {
  const trimmed = typeof runId === 'string' ? runId.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

interface MutableRecord {
  toolName: string;
  argsHash: string;
  toolCallId?: string;
  runId?: string;
  resultHash?: string;
  unknownToolName?: string;
  timestamp: number;
}

/** Per-run-scope indexes, maintained as records enter and leave the shared window. */
interface Scope {
  readonly records: RingQueue<MutableRecord>;
  readonly bySignature: Map<string, RingQueue<MutableRecord>>;
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

const EMPTY_SIGNATURE = new RingQueue<MutableRecord>();

/**
 * One session's tool-call history (spec §b.1, §b.3): a single window shared by all runs,
 * trimmed to `historySize` before run filtering, with per-run indexes so that detection
 * over a run's view does not rescan the window.
 */
export class ToolCallHistory {
  private readonly window = new RingQueue<MutableRecord>();
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
    return this.window.toArray().map((record) => ({ ...record }));
  }

  /** The view of one run scope (`undefined` or blank = the unscoped records). */
  view(runId?: string): ScopedHistory {
    return new ScopeView(this.scopes.get(normalizeRunId(runId) ?? ''));
  }

  /** Appends a pre-call record (spec §b.3 step 1) and trims the window. */
  recordCall(call: { toolName: string; argsHash: string; toolCallId?: string; runId?: string }, historySize: number): void {
    this.append({ toolName: call.toolName, argsHash: call.argsHash, toolCallId: call.toolCallId, runId: normalizeRunId(call.runId) }, historySize);
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
    const signature = this.scopes.get(runId ?? '')?.bySignature.get(outcome.argsHash);
    if (signature) {
      for (let i = 0; i < signature.length; i += 1) {
        const record = signature.fromNewest(i)!;
        if (record.resultHash !== undefined || record.toolName !== outcome.toolName) continue;
        if (outcome.toolCallId !== undefined && record.toolCallId !== outcome.toolCallId) continue;
        record.resultHash = outcome.resultHash;
        record.unknownToolName = outcome.unknownToolName;
        return record;
      }
    }
    return this.append(
      {
        toolName: outcome.toolName,
        argsHash: outcome.argsHash,
        toolCallId: outcome.toolCallId,
        runId,
        resultHash: outcome.resultHash,
        unknownToolName: outcome.unknownToolName,
      },
      historySize,
    );
  }

  private append(fields: Omit<MutableRecord, 'timestamp'>, historySize: number): MutableRecord {
    const record: MutableRecord = { ...fields, timestamp: this.now() };
    if (record.toolCallId === undefined) delete record.toolCallId;
    if (record.runId === undefined) delete record.runId;
    if (record.resultHash === undefined) delete record.resultHash;
    if (record.unknownToolName === undefined) delete record.unknownToolName;

    const key = record.runId ?? '';
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { records: new RingQueue(), bySignature: new Map(), alternationTail: 0 };
      this.scopes.set(key, scope);
    }
    scope.alternationTail = nextAlternationTail(scope, record.argsHash);
    scope.records.push(record);
    let signature = scope.bySignature.get(record.argsHash);
    if (!signature) {
      signature = new RingQueue();
      scope.bySignature.set(record.argsHash, signature);
    }
    signature.push(record);
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
      const signature = scope.bySignature.get(evicted.argsHash)!;
      signature.shift();
      if (signature.length === 0) scope.bySignature.delete(evicted.argsHash);
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
    const records = this.scope?.bySignature.get(argsHash) ?? EMPTY_SIGNATURE;
    let latestResultHash: string | undefined;
    let count = 0;
    for (let i = 0; i < records.length; i += 1) {
      const { resultHash } = records.fromNewest(i)!;
      if (resultHash === undefined) continue;
      if (latestResultHash === undefined) latestResultHash = resultHash;
      else if (resultHash !== latestResultHash) break;
      count += 1;
    }
    return latestResultHash === undefined ? { count } : { count, latestResultHash };
  }

  recentCount(argsHash: string): number {
    return this.scope?.bySignature.get(argsHash)?.length ?? 0;
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
