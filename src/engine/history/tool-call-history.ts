import { RingQueue } from '../../util/ring-queue.js';
import type { OutcomeHash, ToolCallRecord } from '../types.js';
import { DeferredOutcome } from './deferred-outcome.js';
import type { InFlightCall } from './in-flight-call.js';
import { ScopeView, type ScopedHistory } from './queries.js';
import { ScopeLog } from './record-ring.js';

/** Trims a run id; empty means "no run id", as in OpenClaw. */
export function normalizeRunId(runId: string | undefined): string | undefined {
  const trimmed = typeof runId === 'string' ? runId.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}

/** A pre-call record's identity. */
export interface PendingCall {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId?: string;
  readonly runId?: string;
}

/** An outcome to attach (see {@link ToolCallHistory.recordOutcome}): a hash, or a loop veto without one. */
export interface HashedOutcome extends PendingCall, OutcomeHash {}

/**
 * One OpenClaw session's tool-call history: a single window shared by all its runs,
 * trimmed to `historySize` before run filtering, with per-run indexes so that detection
 * over a run's view does not rescan the window.
 */
export class ToolCallHistory {
  /** The scope holding records while there is at most one. */
  private sole: ScopeLog | undefined = undefined;
  /** The scopes holding records and the window order, while there are two or more (then `sole` is unset). */
  private multi: MultiScope | undefined = undefined;
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Number of records in the shared window. */
  get size(): number {
    return this.multi ? this.multi.order.length : (this.sole?.length ?? 0);
  }

  /** The records, oldest first (a copy, for inspection). */
  records(): ToolCallRecord[] {
    const records: ToolCallRecord[] = [];
    if (this.sole) {
      for (let s = this.sole.first; s < this.sole.end; s += 1) records.push(this.sole.toRecord(s));
    } else if (this.multi) {
      const next = new Map<ScopeLog, number>();
      for (const scope of this.multi.order.toArray()) {
        const seq = next.get(scope) ?? scope.first;
        records.push(scope.toRecord(seq));
        next.set(scope, seq + 1);
      }
    }
    return records;
  }

  /** The view of one run scope (`undefined` or blank = the unscoped records). */
  view(runId?: string): ScopedHistory {
    return this.scopedView(normalizeRunId(runId));
  }

  /**
   * {@link view} for a run id that is already normalised (a run's hot path). `inFlight`: calls
   * admitted but not finished, oldest first, which the view counts as newer no-progress vetoes.
   */
  scopedView(runId: string | undefined, inFlight?: readonly InFlightCall[]): ScopedHistory {
    return new ScopeView(this.scopeOf(runId), inFlight);
  }

  /** Appends a pre-call record (OpenClaw's before-tool-call step), evicting the oldest beyond `historySize`. */
  recordCall(call: PendingCall, historySize: number): void {
    this.appendCall(call.toolName, call.argsHash, call.toolCallId, normalizeRunId(call.runId), historySize);
  }

  /**
   * Attaches an outcome to the newest matching pending record of the same run, call id (when
   * given), tool and args; appends a complete record when none matches, as OpenClaw's
   * after-tool-call step does. Returns the record that holds the outcome. `similarity`: keep
   * the outcome's result sketch and fields, for the near-duplicate detectors (default: dropped).
   */
  recordOutcome(outcome: HashedOutcome, historySize: number, similarity = false): ToolCallRecord {
    const runId = normalizeRunId(outcome.runId);
    const { scope, seq } = this.attach(
      outcome.toolName,
      outcome.argsHash,
      outcome.toolCallId,
      runId,
      outcome,
      historySize,
      similarity,
    );
    return scope.toRecord(seq);
  }

  /**
   * {@link recordCall} for a normalised run id, without a call object (a run's hot path).
   * `timestamp`: the record's, when the caller has just read this history's clock (default: it is read).
   */
  appendCall(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    runId: string | undefined,
    historySize: number,
    timestamp?: number,
  ): void {
    this.append(toolName, argsHash, toolCallId, runId, historySize, timestamp);
  }

  /**
   * {@link recordOutcome} for a normalised run id, building no record (a run's hot path). A
   * {@link DeferredOutcome} is kept unhashed until its hash is first read (never, if its record
   * leaves unread).
   */
  attachOutcome(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    runId: string | undefined,
    outcome: OutcomeHash,
    historySize: number,
    similarity = false,
  ): void {
    this.attach(toolName, argsHash, toolCallId, runId, outcome, historySize, similarity);
  }

  /** Records of a (tool, args) signature in a run scope (normalised run id), pending or not. */
  signatureCount(toolName: string, argsHash: string, runId: string | undefined): number {
    const scope = this.scopeOf(runId);
    return scope ? scope.countOf(scope.keyFor(toolName, argsHash)) : 0;
  }

  /** Deferred outcomes still unhashed stop counting against their budget (the history's run was let go). */
  uncountDeferred(): void {
    if (this.sole) this.sole.uncountDeferred();
    else if (this.multi) for (const scope of this.multi.scopes.values()) scope.uncountDeferred();
  }

  /** Appends a record that already has its outcome (a loop veto: the call never runs). */
  appendOutcome(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    runId: string | undefined,
    outcome: OutcomeHash,
    historySize: number,
  ): void {
    const target = this.append(toolName, argsHash, toolCallId, runId, historySize);
    target.setOutcome(target.end - 1, outcome, outcome.resultHash);
  }

  private attach(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    runId: string | undefined,
    outcome: OutcomeHash,
    historySize: number,
    similarity: boolean,
  ): { scope: ScopeLog; seq: number } {
    const scope = this.scopeOf(runId);
    const pending = scope ? pendingMatch(scope, toolName, argsHash, toolCallId) : -1;
    const target = pending >= 0 ? scope! : this.append(toolName, argsHash, toolCallId, runId, historySize);
    const seq = pending >= 0 ? pending : target.end - 1;
    if (outcome instanceof DeferredOutcome) target.setDeferredOutcome(seq, outcome);
    else target.setOutcome(seq, outcome, outcome.resultHash, similarity);
    return { scope: target, seq };
  }

  private scopeOf(runId: string | undefined): ScopeLog | undefined {
    if (this.multi) return this.multi.scopes.get(runId ?? '');
    return this.sole !== undefined && this.sole.runId === runId ? this.sole : undefined;
  }

  /**
   * Appends a pending record to its scope. The window is first trimmed to leave room for it,
   * so it holds at most `historySize` records and a scope's ring never grows beyond that; the
   * derived state (alternation tail, signature counts) ends up as if the record had been
   * appended first and the window trimmed after.
   */
  private append(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    runId: string | undefined,
    historySize: number,
    timestamp = this.now(),
  ): ScopeLog {
    this.trim(historySize - 1);
    let scope = this.scopeOf(runId);
    if (!scope) {
      scope = new ScopeLog(runId);
      if (this.sole) {
        // A second scope: from now on the window needs to know each record's scope.
        const sole = this.sole;
        this.multi = { scopes: new Map([[sole.runId ?? '', sole]]), order: new RingQueue() };
        for (let i = 0; i < sole.length; i += 1) this.multi.order.push(sole);
        this.sole = undefined;
      }
      if (this.multi) this.multi.scopes.set(runId ?? '', scope);
      else this.sole = scope;
    }
    scope.push(toolName, argsHash, toolCallId, timestamp, historySize);
    this.multi?.order.push(scope);
    return scope;
  }

  /** Evicts the oldest records of the window until at most `limit` remain. */
  private trim(limit: number): void {
    for (let size = this.size; size > 0 && size > limit; size -= 1) {
      const { multi } = this;
      const scope = multi ? multi.order.shift()! : this.sole!;
      scope.shift();
      if (scope.length > 0) continue;
      if (!multi) this.sole = undefined;
      else {
        multi.scopes.delete(scope.runId ?? '');
        if (multi.scopes.size === 1) {
          // Back to a single scope: the order queue would only repeat it.
          this.sole = multi.scopes.values().next().value;
          this.multi = undefined;
        }
      }
    }
  }
}

/** The scopes of a history with records of two or more runs. */
interface MultiScope {
  readonly scopes: Map<string, ScopeLog>;
  /** The scope of each record of the window, oldest first. */
  readonly order: RingQueue<ScopeLog>;
}

/**
 * The newest pending record of the outcome's signature with the same tool and, when the
 * outcome has one, the same call id; -1 when there is none.
 */
function pendingMatch(scope: ScopeLog, toolName: string, argsHash: string, toolCallId: string | undefined): number {
  const key = scope.keyFor(toolName, argsHash);
  for (let s = scope.newestOf(key), n = scope.countOf(key); n > 0; n -= 1, s = scope.olderOf(s, key)) {
    if (
      scope.isPending(s) &&
      scope.isToolName(s, toolName) &&
      (toolCallId === undefined || scope.hasToolCallId(s, toolCallId))
    )
      return s;
  }
  return -1;
}
