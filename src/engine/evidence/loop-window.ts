import type { RunLog } from '../history/run-log.js';
import type { LoopVerdict, ToolCallSignature } from '../types.js';

/**
 * The member calls of a detected loop recorded before the judged call, oldest first: what a
 * loop event carries so that the loop can be audited without the raw calls.
 */
export interface LoopWindow {
  /** The loop's distinct signatures (args hashes). */
  readonly signatures: readonly string[];
  /** Per member: its call id (`''` when it had none). */
  readonly callIds: readonly string[];
  readonly argsHashes: readonly string[];
  /** Per member: its result hash (`''` while it runs, or for a blocked call). */
  readonly resultHashes: readonly string[];
  /** The first member's call id, when it had one. */
  readonly firstCallId?: string;
  /** When the first member was recorded (the run's clock); absent when the judged call is the first. */
  readonly firstTimestamp?: number;
}

/**
 * The signatures of a verdict's loop: the ones the detector named, else the judged call's and,
 * for a ping-pong, the other side's.
 */
export function loopSignaturesOf(verdict: LoopVerdict, call: ToolCallSignature): readonly string[] {
  if (verdict.loopSignatures !== undefined && verdict.loopSignatures.length > 0) return verdict.loopSignatures;
  return verdict.pairedSignature !== undefined && verdict.pairedSignature !== call.argsHash
    ? [verdict.pairedSignature, call.argsHash]
    : [call.argsHash];
}

/** The loop's members among a run's records, oldest first. */
export function loopWindow(log: RunLog, signatures: readonly string[]): LoopWindow {
  const wanted = new Set(signatures);
  const callIds: string[] = [];
  const argsHashes: string[] = [];
  const resultHashes: string[] = [];
  let first = -1;
  for (let s = log.first; s < log.end; s += 1) {
    const argsHash = log.argsHash(s);
    if (!wanted.has(argsHash)) continue;
    if (first < 0) first = s;
    callIds.push(log.toolCallId(s) ?? '');
    argsHashes.push(argsHash);
    resultHashes.push(log.resultHash(s) ?? '');
  }
  if (first < 0) return { signatures, callIds, argsHashes, resultHashes };
  const firstCallId = log.toolCallId(first);
  const firstTimestamp = log.timestamp(first);
  return firstCallId === undefined
    ? { signatures, callIds, argsHashes, resultHashes, firstTimestamp }
    : { signatures, callIds, argsHashes, resultHashes, firstCallId, firstTimestamp };
}
