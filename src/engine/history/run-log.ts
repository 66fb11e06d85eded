import type { ToolCallRecord } from '../types.js';
import type { DeferredOutcome } from './deferred-outcome.js';
import type { OutcomeFacts } from '../types.js';

/** The call a record is made for: its tool and args hash (a `ToolCallSignature` will do). */
export interface LoggedCall {
  readonly toolName: string;
  readonly argsHash: string;
}

/**
 * One run's tool-call records, oldest first, read by position: what the detectors' queries read,
 * and the writes of the run that owns them. Records are numbered in append order; those from
 * {@link first} up to {@link end} (excluded) are held.
 *
 * A record is pending (its call runs) until it gets its outcome: a result hash, or none (a loop
 * veto), and the outcome's facts; or a kept {@link DeferredOutcome}: the log answers every
 * question but the hash itself without hashing it, and hashes it when {@link resultHash} is first
 * read, never if the record leaves unread.
 */
export interface RunLog {
  /** Number of the oldest record held. */
  readonly first: number;
  /** Number the next record gets. */
  readonly end: number;
  /** Records whose outcome has a typed error: most logs have none, and then no query scans for one. */
  readonly typedErrors: number;

  toolName(seq: number): string;
  argsHash(seq: number): string;
  /** Whether records `a` and `b` have the same args hash (without rebuilding either). */
  sameArgs(a: number, b: number): boolean;
  /** The record's signature key (see `signatureKey`). */
  keyOf(seq: number): string;
  toolCallId(seq: number): string | undefined;
  /** When the call was recorded (the run's clock). */
  timestamp(seq: number): number;
  /** Whether the record still waits for its outcome. */
  isPending(seq: number): boolean;
  /** Whether the record has a result hash, without hashing a deferred outcome (which always has one). */
  hasResultHash(seq: number): boolean;
  /** The result hash, if any (a deferred outcome is hashed now). */
  resultHash(seq: number): string | undefined;
  /**
   * Whether the outcome made no progress (an error, or a result flagged so), without hashing a
   * deferred outcome (a success: never). False for a record without a hash.
   */
  isNoProgressResult(seq: number): boolean;
  /** The outcome's facts besides its hash, if it has any (never hashes a deferred outcome). */
  facts(seq: number): OutcomeFacts | undefined;
  /** The newest record before `before` of the call's signature (its tool and args hash), or -1. */
  newestOf(call: LoggedCall, before: number): number;

  /**
   * Appends a pending record, first evicting the oldest records until fewer than `limit` remain
   * (a run's `historySize`). Returns its number.
   */
  push(call: LoggedCall, toolCallId: string | undefined, timestamp: number, limit: number): number;
  /** Evicts the oldest record (a deferred outcome evicted unread is let go, never hashed). */
  shift(): void;
  /** Gives a pending record its outcome: a result hash (none for a loop veto) and its facts. */
  setOutcome(seq: number, resultHash: string | undefined, facts: OutcomeFacts | undefined): void;
  /** Gives a pending record a kept deferred outcome: hashed when first read, its facts its own. */
  setDeferred(seq: number, outcome: DeferredOutcome): void;
  /**
   * The deferred outcome of record `seq` is to be hashed now (its budget is full): the record
   * stores the hash as any other and lets go of the outcome. A no-op if the record left, or holds
   * another outcome.
   */
  settleDeferred(seq: number, outcome: DeferredOutcome): void;
  /** The run was let go: deferred outcomes still unhashed stop counting against their budget. */
  releaseDeferred(): void;
}

/** Whether the record is the loop's own veto (a blocked call: no outcome, not pending). */
export function isVeto(log: RunLog, seq: number): boolean {
  return log.facts(seq)?.outcomeKind === 'tool-loop-veto';
}

/** The records of the call's signature, pending or not, newest first. */
export function recordsOf(log: RunLog, call: LoggedCall): number[] {
  const found: number[] = [];
  for (let s = log.newestOf(call, log.end); s >= 0; s = log.newestOf(call, s)) found.push(s);
  return found;
}

/**
 * The newest pending record of the call (its tool and args) with, when `toolCallId` is given, the
 * same call id (OpenClaw's match of an outcome to its call); -1 when there is none.
 */
export function pendingRecordOf(log: RunLog, call: LoggedCall, toolCallId: string | undefined): number {
  for (let s = log.newestOf(call, log.end); s >= 0; s = log.newestOf(call, s)) {
    if (
      log.isPending(s) &&
      log.toolName(s) === call.toolName &&
      (toolCallId === undefined || log.toolCallId(s) === toolCallId)
    )
      return s;
  }
  return -1;
}

/** Record `seq` in the public shape, as OpenClaw's history records it (absent fields omitted). */
export function recordAt(log: RunLog, seq: number, runId: string | undefined): ToolCallRecord {
  const record: { -readonly [K in keyof ToolCallRecord]: ToolCallRecord[K] } = {
    toolName: log.toolName(seq),
    argsHash: log.argsHash(seq),
    timestamp: log.timestamp(seq),
  };
  const toolCallId = log.toolCallId(seq);
  const resultHash = log.resultHash(seq);
  if (toolCallId !== undefined) record.toolCallId = toolCallId;
  if (runId !== undefined) record.runId = runId;
  if (resultHash !== undefined) record.resultHash = resultHash;
  return { ...record, ...log.facts(seq) };
}
