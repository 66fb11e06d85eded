import { PackedRing } from './packed-ring.js';

/** Where a call can be found again: its span's trace and span ids (lowercase hex, W3C lengths). */
export interface CallRef {
  readonly traceId: string;
  readonly spanId: string;
}

/** Slots of one call: its signature's digest, the span id's high and low 32 bits, its trace's index. */
const SIGNATURE = 0;
const SPAN_HIGH = 1;
const SPAN_LOW = 2;
const TRACE = 3;
const STRIDE = 4;

const SPAN_ID = /^[0-9a-f]{16}$/i;

/**
 * A 32-bit FNV-1a digest of an args hash: enough to tell the few signatures of one run's window
 * apart, in four bytes instead of a retained string.
 */
export function signatureDigest(argsHash: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < argsHash.length; i += 1) {
    hash ^= argsHash.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The span references of a run's newest calls (as many as its history holds), for the links
 * of an evidence span: 16 bytes per call in one typed array, and each distinct trace id once.
 */
export class CallRefs extends PackedRing<Uint32Array> {
  /**
   * Distinct trace ids of the calls held (usually one: a run lives in one trace), created with
   * the first one (an empty array would reserve room for 17).
   */
  private traces: string[] | undefined = undefined;

  constructor(maxCalls: number) {
    super(Uint32Array, STRIDE, maxCalls);
  }

  /** Remembers a call's span; a span id that is not 16 hex digits is not kept. */
  add(argsHash: string, ref: CallRef): void {
    if (!SPAN_ID.test(ref.spanId)) return;
    const at = this.append();
    const slots = this.slots;
    slots[at + SIGNATURE] = signatureDigest(argsHash);
    slots[at + SPAN_HIGH] = Number.parseInt(ref.spanId.slice(0, 8), 16);
    slots[at + SPAN_LOW] = Number.parseInt(ref.spanId.slice(8), 16);
    slots[at + TRACE] = this.traceIndex(ref.traceId);
  }

  /** The held calls whose args hash is one of `signatures`, oldest first. */
  of(signatures: readonly string[]): CallRef[] {
    const digests = new Set(signatures.map(signatureDigest));
    const refs: CallRef[] = [];
    const slots = this.slots;
    for (let seq = this.oldest; seq < this.count; seq += 1) {
      const at = this.offset(seq);
      if (!digests.has(slots[at + SIGNATURE])) continue;
      refs.push({
        traceId: this.traces![slots[at + TRACE]],
        spanId: hex8(slots[at + SPAN_HIGH]) + hex8(slots[at + SPAN_LOW]),
      });
    }
    return refs;
  }

  private traceIndex(traceId: string): number {
    if (!this.traces) {
      this.traces = [traceId];
      return 0;
    }
    const known = this.traces.lastIndexOf(traceId);
    if (known >= 0) return known;
    // A run that spans many traces: keep only the traces its held calls use.
    if (this.traces.length >= 2 * this.maxRecords) this.compactTraces();
    this.traces.push(traceId);
    return this.traces.length - 1;
  }

  private compactTraces(): void {
    const slots = this.slots;
    const kept: string[] = [];
    for (let seq = this.oldest; seq < this.count; seq += 1) {
      const at = this.offset(seq);
      const traceId = this.traces![slots[at + TRACE]];
      let index = kept.indexOf(traceId);
      if (index < 0) index = kept.push(traceId) - 1;
      slots[at + TRACE] = index;
    }
    this.traces = kept;
  }
}

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0');
}
