/**
 * The test oracle of `RunLog`: one plain object per record in an array, every field as given.
 * The property tests run the same steps against it and the packed log the engine uses.
 */
import { DeferredOutcome } from '../../src/engine/history/deferred-outcome.js';
import { isNoProgressOutcome } from '../../src/engine/history/no-progress-outcome.js';
import type { OutcomeFacts } from '../../src/engine/types.js';
import type { LoggedCall, RunLog } from '../../src/engine/history/run-log.js';
import { signatureKey } from '../../src/engine/history/signature-key.js';

interface PlainRecord {
  readonly toolName: string;
  readonly argsHash: string;
  readonly toolCallId: string | undefined;
  readonly timestamp: number;
  pending: boolean;
  resultHash: string | DeferredOutcome | undefined;
  facts: OutcomeFacts | undefined;
}

export class PlainRunLog implements RunLog {
  first = 0;
  end = 0;
  typedErrors = 0;
  private readonly records: PlainRecord[] = [];

  private at(seq: number): PlainRecord {
    if (seq < this.first || seq >= this.end) throw new RangeError(`record ${seq} is not held`);
    return this.records[seq - this.first];
  }

  toolName(seq: number): string {
    return this.at(seq).toolName;
  }

  argsHash(seq: number): string {
    return this.at(seq).argsHash;
  }

  sameArgs(a: number, b: number): boolean {
    return this.argsHash(a) === this.argsHash(b);
  }

  keyOf(seq: number): string {
    return signatureKey(this.toolName(seq), this.argsHash(seq));
  }

  toolCallId(seq: number): string | undefined {
    return this.at(seq).toolCallId;
  }

  timestamp(seq: number): number {
    return this.at(seq).timestamp;
  }

  isPending(seq: number): boolean {
    return this.at(seq).pending;
  }

  hasResultHash(seq: number): boolean {
    return this.at(seq).resultHash !== undefined;
  }

  resultHash(seq: number): string | undefined {
    const record = this.at(seq);
    if (record.resultHash instanceof DeferredOutcome) record.resultHash = record.resultHash.resultHash;
    return record.resultHash;
  }

  isNoProgressResult(seq: number): boolean {
    const { resultHash, facts } = this.at(seq);
    if (resultHash === undefined || resultHash instanceof DeferredOutcome) return false;
    return isNoProgressOutcome(resultHash, facts?.noProgress);
  }

  facts(seq: number): OutcomeFacts | undefined {
    return this.at(seq).facts;
  }

  newestOf(call: LoggedCall, before: number): number {
    const key = signatureKey(call.toolName, call.argsHash);
    for (let s = Math.min(before, this.end) - 1; s >= this.first; s -= 1) if (this.keyOf(s) === key) return s;
    return -1;
  }

  push(call: LoggedCall, toolCallId: string | undefined, timestamp: number, limit: number): number {
    while (this.end - this.first >= limit) this.shift();
    const { toolName, argsHash } = call;
    this.records.push({
      toolName,
      argsHash,
      toolCallId,
      timestamp,
      pending: true,
      resultHash: undefined,
      facts: undefined,
    });
    return this.end++;
  }

  shift(): void {
    const record = this.records.shift();
    if (record?.facts?.typedError !== undefined) this.typedErrors -= 1;
    if (record?.resultHash instanceof DeferredOutcome) record.resultHash.drop();
    this.first += 1;
  }

  setOutcome(seq: number, resultHash: string | undefined, facts: OutcomeFacts | undefined): void {
    const record = this.at(seq);
    if (facts?.typedError !== undefined) this.typedErrors += 1;
    record.pending = false;
    record.resultHash = resultHash;
    record.facts = facts;
  }

  setDeferred(seq: number, outcome: DeferredOutcome): void {
    const record = this.at(seq);
    record.pending = false;
    record.resultHash = outcome;
    record.facts = outcome.facts;
  }

  settleDeferred(seq: number, outcome: DeferredOutcome): void {
    if (seq >= this.first && seq < this.end && this.at(seq).resultHash === outcome) this.resultHash(seq);
  }

  releaseDeferred(): void {
    for (const record of this.records) if (record.resultHash instanceof DeferredOutcome) record.resultHash.uncount();
  }
}
