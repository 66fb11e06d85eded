import { RingQueue } from '../../util/ring-queue.js';
import { normalizeRunId } from '../normalize-run-id.js';
import type { OutcomeHash, ToolCallRecord } from '../types.js';
import { outcomeFactsOf } from './outcome-facts.js';
import { PackedRunLog } from './packed-run-log.js';
import type { RunHistory } from './run-history.js';
import { RunHistoryView } from './run-history-view.js';
import { pendingRecordOf, recordAt, type LoggedCall, type RunLog } from './run-log.js';

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
 * One OpenClaw session's tool-call history: a single window shared by all its runs, trimmed to
 * `historySize` before run filtering (a run's records may leave because another run recorded).
 * Each run's records are a log of their own; the window knows which log each of its records is
 * in. The span processor does not use it (each of its runs holds its own log); give one to the
 * `LoopRun`s of a session (`LoopRunOptions.history`) to share a window as OpenClaw's runs do.
 */
export class ToolCallHistory {
  private readonly logs = new Map<string, RunLog>();
  /** The log of each record of the window, oldest first. */
  private readonly order = new RingQueue<RunLog>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Number of records in the shared window. */
  get size(): number {
    return this.order.length;
  }

  /** The records, oldest first (a copy, for inspection). */
  records(): ToolCallRecord[] {
    const next = new Map<RunLog, number>();
    const runIds = new Map([...this.logs].map(([runId, log]) => [log, runId === '' ? undefined : runId]));
    return this.order.toArray().map((log) => {
      const seq = next.get(log) ?? log.first;
      next.set(log, seq + 1);
      return recordAt(log, seq, runIds.get(log));
    });
  }

  /** The history of one run (`undefined` or blank = the records without a run id), as the detectors read it. */
  view(runId?: string): RunHistory {
    return new RunHistoryView(this.logs.get(normalizeRunId(runId) ?? ''));
  }

  /** Appends a pre-call record (OpenClaw's before-tool-call step), evicting the oldest beyond `historySize`. */
  recordCall(call: PendingCall, historySize: number): void {
    const log = this.logOf(call.runId);
    this.append(log, { ...call, timestamp: this.now() }, historySize);
  }

  /**
   * Attaches an outcome to the newest pending record of the same run, call id (when given), tool
   * and args; appends a complete record when none matches, as OpenClaw's after-tool-call step
   * does. Returns the record that holds the outcome.
   */
  recordOutcome(outcome: HashedOutcome, historySize: number): ToolCallRecord {
    const runId = normalizeRunId(outcome.runId);
    const log = this.logOf(runId);
    let seq = pendingRecordOf(log, outcome, outcome.toolCallId);
    if (seq < 0) seq = this.append(log, { ...outcome, timestamp: this.now() }, historySize);
    log.setOutcome(seq, outcome.resultHash, outcomeFactsOf(outcome));
    return recordAt(log, seq, runId);
  }

  /**
   * The log of a run's records in this window (blank or absent run id: the records without one),
   * made on first use. A `LoopRun` given this history records into it through {@link append}.
   * @internal
   */
  logOf(runId: string | undefined): RunLog {
    const key = normalizeRunId(runId) ?? '';
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = new PackedRunLog()));
    return log;
  }

  /**
   * Appends a pending record to a run's log (one of {@link logOf}), first evicting the window's
   * oldest records, whatever their run, until fewer than `historySize` remain. Returns its number.
   * @internal
   */
  append(log: RunLog, call: WindowCall, historySize: number): number {
    while (this.order.length >= historySize) this.order.shift()!.shift();
    this.order.push(log);
    return log.push(call, call.toolCallId, call.timestamp, historySize);
  }
}

/** A call appended to a window (see {@link ToolCallHistory.append}). */
export interface WindowCall extends LoggedCall {
  readonly toolCallId?: string;
  /** The record's time (the run's clock). */
  readonly timestamp: number;
}
