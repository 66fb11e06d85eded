/**
 * The two `RunLog`s the property tests run against — the packed one the engine uses and the
 * plain oracle — and the writes a run makes to one, as `LoopRun` makes them.
 */
import { DeferredOutcome } from '../../src/engine/history/deferred-outcome.js';
import { outcomeFactsOf } from '../../src/engine/history/outcome-facts.js';
import { PackedRunLog } from '../../src/engine/history/packed-run-log.js';
import { pendingRecordOf, recordAt, type RunLog } from '../../src/engine/history/run-log.js';
import type { OutcomeHash, ToolCallRecord } from '../../src/engine/types.js';
import { PlainRunLog } from './plain-run-log.js';

/** Each implementation by name, for `describe.each`. */
export const RUN_LOGS: readonly (readonly [string, () => RunLog])[] = [
  ['packed', () => new PackedRunLog()],
  ['plain', () => new PlainRunLog()],
];

/** Appends a pending record (the oldest evicted beyond `limit`); returns its number. */
export function appendCall(
  log: RunLog,
  call: { toolName: string; argsHash: string; toolCallId?: string },
  limit: number,
  timestamp = 0,
): number {
  return log.push(call, call.toolCallId, timestamp, limit);
}

/**
 * Gives an outcome to the newest pending record of its call (same call id when given), else to
 * a record appended for it; a deferred outcome stays unhashed. Returns the record's number.
 */
export function attachOutcome(
  log: RunLog,
  call: { toolName: string; argsHash: string; toolCallId?: string },
  outcome: OutcomeHash,
  limit: number,
  timestamp = 0,
): number {
  let seq = pendingRecordOf(log, call, call.toolCallId);
  if (seq < 0) seq = appendCall(log, call, limit, timestamp);
  if (outcome instanceof DeferredOutcome) log.setDeferred(seq, outcome);
  else log.setOutcome(seq, outcome.resultHash, outcomeFactsOf(outcome));
  return seq;
}

/** Appends a blocked call: a record with the veto outcome, no hash. */
export function appendVeto(
  log: RunLog,
  call: { toolName: string; argsHash: string; toolCallId?: string },
  limit: number,
  timestamp = 0,
): number {
  const seq = appendCall(log, call, limit, timestamp);
  log.setOutcome(seq, undefined, { outcomeKind: 'tool-loop-veto' });
  return seq;
}

/** Records held. */
export function lengthOf(log: RunLog): number {
  return log.end - log.first;
}

/** The log's records in the public shape, oldest first. */
export function recordsOf(log: RunLog, runId?: string): ToolCallRecord[] {
  const records: ToolCallRecord[] = [];
  for (let s = log.first; s < log.end; s += 1) records.push(recordAt(log, s, runId));
  return records;
}
