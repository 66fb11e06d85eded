import type { LoopVerdict, ToolCallRecord, ToolCallSignature } from '../types.js';

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

/** The loop's members among a run's records (`runId` normalised; records of other runs are skipped). */
export function loopWindow(
  records: readonly ToolCallRecord[],
  runId: string | undefined,
  signatures: readonly string[],
): LoopWindow {
  const wanted = new Set(signatures);
  const callIds: string[] = [];
  const argsHashes: string[] = [];
  const resultHashes: string[] = [];
  let first: ToolCallRecord | undefined;
  for (const record of records) {
    if (record.runId !== runId || !wanted.has(record.argsHash)) continue;
    first ??= record;
    callIds.push(record.toolCallId ?? '');
    argsHashes.push(record.argsHash);
    resultHashes.push(record.resultHash ?? '');
  }
  return {
    signatures,
    callIds,
    argsHashes,
    resultHashes,
    ...(first?.toolCallId !== undefined ? { firstCallId: first.toolCallId } : {}),
    ...(first !== undefined ? { firstTimestamp: first.timestamp } : {}),
  };
}
