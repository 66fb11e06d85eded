import { hexDigitsOf } from '../hashing/hex-digits.js';
import type { DeferredOutcome } from './deferred-outcome.js';
import { hexValue } from './hex-value.js';
import { isNoProgressOutcome } from './no-progress-outcome.js';
import { mutationTargetOnly } from './outcome-facts.js';
import type { OutcomeFacts } from '../types.js';
import type { LoggedCall, RunLog } from './run-log.js';
import { signatureKey } from './signature-key.js';

/*
 * Why packed: a span processor holds one log per live run, so the bytes per record are what a
 * service with thousands of live runs pays (docs/performance.md, memory). The records live in one
 * Int32Array ring, STRIDE numbers each: no object per record, no string per hash or call id. An
 * args hash this package computes is `<toolName>:<16 hex digits>`: the ring holds an index into
 * the log's table of tool names and the digest's two 32-bit halves; a result hash (`<16 hex
 * digits>`, or `error:` and them) its halves and its form. Call ids are their Latin-1 characters,
 * four to a word, in a second ring after the records (which leave oldest first, as their
 * characters do). Strings are rebuilt where a reader asks for one; lookups compare numbers. All
 * else (hashes and ids of other forms, outcome facts, deferred outcomes) lives in arrays by ring
 * position, made on first use; a `write` whose only facts are its kind and target keeps its target.
 */

/** A result hash not of digest form, and the outcome's facts. */
type StoredHash = { readonly resultHash: string; readonly facts: OutcomeFacts | undefined };

// Numbers of one record, STRIDE apart. TIME: the timestamp minus the log's epoch; META: the tool
// index, the args form, the result form and the call id form (the masks below).
const ARGS_HI = 0;
const ARGS_LO = 1;
const RESULT_HI = 2;
const RESULT_LO = 3;
const TIME = 4;
const META = 5;
const STRIDE = 6;

// META: the tool's index (digest-form args), or ARGS_STRING (the args hash is a string in `calls`).
const META_TOOL = 0xff;
/** Tool tables hold at most this many names; a call of another tool keeps its args hash as a string. */
const MAX_TOOLS = 0xff;
const ARGS_STRING = 1 << 8;
// The result form: pending; no hash (a loop veto); `<hex>` or `error:<hex>` in RESULT_HI/LO; a
// StoredHash or a DeferredOutcome in `outcomes`.
const RESULT_SHIFT = 9;
const META_RESULT = 7 << RESULT_SHIFT;
const PENDING = 0;
const NO_HASH = 1 << RESULT_SHIFT;
const HEX = 2 << RESULT_SHIFT;
const ERROR_HEX = 3 << RESULT_SHIFT;
const STRING = 4 << RESULT_SHIFT;
const DEFERRED = 5 << RESULT_SHIFT;
// The call id form: none; packed in the id ring after those of the older records, its length
// from ID_LENGTH_SHIFT; a string in `ids` (longer than MAX_PACKED_ID, or beyond Latin-1).
const ID_SHIFT = 12;
const META_ID = 3 << ID_SHIFT;
const ID_PACKED = 1 << ID_SHIFT;
const ID_STRING = 2 << ID_SHIFT;
const ID_LENGTH_SHIFT = 14;
const MAX_PACKED_ID = 1024;
const ERROR_PREFIX = 'error:';
const DIGEST_LENGTH = 16;

/** A {@link RunLog} packed for memory (see the note above). */
export class PackedRunLog implements RunLog {
  first = 0;
  end = 0;
  typedErrors = 0;
  private numbers = new Int32Array(0);
  /** Records the ring holds: record `seq` is at position `seq % capacity`. */
  private capacity = 0;
  /** Words of the id ring (after the records), those in use, and the next free one. */
  private idWords = 0;
  private idUsed = 0;
  private idEnd = 0;
  /** The tool names of digest-form args hashes, by index. */
  private tools: string[] = [];
  private epoch = 0;
  // By ring position, made on first use. `calls`: args hashes not of digest form, or of a tool the table has no room for.
  private calls: ({ toolName: string; argsHash: string; key: string } | undefined)[] | undefined = undefined;
  /** By the record's result form: its facts (a `write`'s target hash alone), a StoredHash, or a DeferredOutcome. */
  private outcomes: (OutcomeFacts | string | StoredHash | DeferredOutcome | undefined)[] | undefined = undefined;
  private ids: (string | undefined)[] | undefined = undefined;
  /** Timestamps as given, once one was not an exact int32 offset from the epoch. */
  private times: number[] | undefined = undefined;
  /** The newest record's call id as given, while it waits for its outcome (matched to it by id): not rebuilt to be compared. */
  private pendingSeq = -1;
  private pendingId: string | undefined = undefined;
  // The call last looked up or pushed (its check, record and outcome ask about one call), its args
  // hash parsed: the halves, and the tool's index (-1: not in the table; -2: not of digest form).
  private parsedTool: string | undefined = undefined;
  private parsedArgs: string | undefined = undefined;
  private parsedHi = 0;
  private parsedLo = 0;
  private parsedIndex = -1;

  toolName(seq: number): string {
    const i = seq % this.capacity;
    const meta = this.numbers[i * STRIDE + META];
    return meta & ARGS_STRING ? this.calls![i]!.toolName : this.tools[meta & META_TOOL];
  }

  argsHash(seq: number): string {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    if (meta & ARGS_STRING) return this.calls![i]!.argsHash;
    return `${this.tools[meta & META_TOOL]}:${hexDigitsOf(this.numbers[at + ARGS_HI], this.numbers[at + ARGS_LO])}`;
  }

  sameArgs(a: number, b: number): boolean {
    const n = this.numbers;
    const i = (a % this.capacity) * STRIDE;
    const j = (b % this.capacity) * STRIDE;
    // A string-form args hash may equal a digest-form one (of another tool): compared as strings.
    if ((n[i + META] | n[j + META]) & ARGS_STRING) return this.argsHash(a) === this.argsHash(b);
    const sameTool = ((n[i + META] ^ n[j + META]) & META_TOOL) === 0;
    return sameTool && n[i + ARGS_LO] === n[j + ARGS_LO] && n[i + ARGS_HI] === n[j + ARGS_HI];
  }

  keyOf(seq: number): string {
    const i = seq % this.capacity;
    // A digest-form hash names its tool: it is its own signature key.
    return this.numbers[i * STRIDE + META] & ARGS_STRING ? this.calls![i]!.key : this.argsHash(seq);
  }

  toolCallId(seq: number): string | undefined {
    const i = seq % this.capacity;
    const meta = this.numbers[i * STRIDE + META];
    if ((meta & META_ID) !== ID_PACKED) return (meta & META_ID) === ID_STRING ? this.ids![i] : undefined;
    if (seq === this.pendingSeq && this.pendingId !== undefined) return this.pendingId;
    // Its characters end where those of the newer records begin.
    let from = this.idEnd;
    for (let s = this.end - 1; s >= seq; s -= 1) from -= idWordsOf(this.numbers[(s % this.capacity) * STRIDE + META]);
    from = (from + this.idWords) % this.idWords;
    const codes = new Array<number>(meta >>> ID_LENGTH_SHIFT);
    const base = this.capacity * STRIDE;
    for (let c = 0; c < codes.length; c += 1)
      codes[c] = (this.numbers[base + ((from + (c >>> 2)) % this.idWords)] >>> ((c & 3) * 8)) & 0xff;
    return String.fromCharCode(...codes);
  }

  timestamp(seq: number): number {
    const i = seq % this.capacity;
    return this.times ? this.times[i] : this.epoch + this.numbers[i * STRIDE + TIME];
  }

  isPending(seq: number): boolean {
    return this.form(seq) === PENDING;
  }

  hasResultHash(seq: number): boolean {
    const form = this.form(seq);
    return form !== PENDING && form !== NO_HASH;
  }

  resultHash(seq: number): string | undefined {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const form = this.numbers[at + META] & META_RESULT;
    if (form === HEX || form === ERROR_HEX) {
      const digest = hexDigitsOf(this.numbers[at + RESULT_HI], this.numbers[at + RESULT_LO]);
      return form === HEX ? digest : ERROR_PREFIX + digest;
    }
    if (form === STRING) return (this.outcomes![i] as StoredHash).resultHash;
    if (form !== DEFERRED) return undefined;
    // Hashed now, and stored as any other hash: the record lets go of the outcome.
    const deferred = this.outcomes![i] as DeferredOutcome;
    const { resultHash } = deferred;
    this.setOutcome(seq, resultHash, deferred.facts);
    return resultHash;
  }

  isNoProgressResult(seq: number): boolean {
    const form = this.form(seq);
    if (form === ERROR_HEX) return true;
    if (form === PENDING || form === NO_HASH || form === DEFERRED) return false;
    const noProgress = this.facts(seq)?.noProgress;
    if (form === HEX) return noProgress === true;
    return isNoProgressOutcome(this.resultHash(seq)!, noProgress);
  }

  facts(seq: number): OutcomeFacts | undefined {
    const outcome = this.outcomes?.[seq % this.capacity];
    const form = this.form(seq);
    if (form === STRING || form === DEFERRED) return (outcome as StoredHash | DeferredOutcome).facts;
    if (typeof outcome === 'string') return { outcomeKind: 'write-mutation', mutationTargetHash: outcome };
    return outcome as OutcomeFacts | undefined;
  }

  newestOf(call: LoggedCall, before: number): number {
    this.parse(call);
    const { numbers, parsedIndex, parsedHi, parsedLo } = this;
    const top = this.capacity * STRIDE;
    let key: string | undefined;
    // Walks ring positions down from the record before `before`: no division per record.
    for (let s = before - 1, at = (s % this.capacity) * STRIDE; s >= this.first; s -= 1) {
      const meta = numbers[at + META];
      if (meta & ARGS_STRING) {
        key ??= signatureKey(call.toolName, call.argsHash);
        if (this.calls![at / STRIDE]!.key === key) return s;
      } else if (
        numbers[at + ARGS_LO] === parsedLo &&
        numbers[at + ARGS_HI] === parsedHi &&
        (meta & META_TOOL) === parsedIndex
      )
        return s;
      at = (at === 0 ? top : at) - STRIDE;
    }
    return -1;
  }

  push(call: LoggedCall, toolCallId: string | undefined, timestamp: number, limit: number): number {
    while (this.end - this.first >= limit) this.shift();
    if (this.end - this.first === this.capacity) {
      // Doubled, but not beyond `limit`: a full history of 30 fills a ring of 30 exactly.
      const doubled = Math.max(this.capacity * 2, 4);
      this.relayout(limit < doubled ? Math.max(Math.ceil(limit), this.capacity + 1) : doubled, this.idWords);
    }
    const seq = this.end;
    const i = seq % this.capacity;
    const at = i * STRIDE;
    // First: packing the id may move the records to a larger array.
    const idForm = toolCallId === undefined ? 0 : this.storeId(i, toolCallId);
    this.pendingSeq = seq;
    this.pendingId = toolCallId;
    const { toolName, argsHash } = call;
    this.parse(call);
    const tool = this.parsedIndex === -2 ? -1 : this.toolIndex(toolName);
    if (tool >= 0) {
      this.numbers[at + ARGS_HI] = this.parsedHi;
      this.numbers[at + ARGS_LO] = this.parsedLo;
      this.numbers[at + META] = tool | idForm;
    } else {
      this.numbers[at + META] = ARGS_STRING | idForm;
      (this.calls ??= new Array(this.capacity))[i] = { toolName, argsHash, key: signatureKey(toolName, argsHash) };
    }
    this.storeTime(i, timestamp);
    this.end += 1;
    return seq;
  }

  shift(): void {
    const i = this.first % this.capacity;
    const meta = this.numbers[i * STRIDE + META];
    if (this.facts(this.first)?.typedError !== undefined) this.typedErrors -= 1;
    if ((meta & META_RESULT) === DEFERRED) (this.outcomes![i] as DeferredOutcome).drop();
    this.idUsed -= idWordsOf(meta);
    if (this.calls) this.calls[i] = undefined;
    if (this.outcomes) this.outcomes[i] = undefined;
    if (this.ids) this.ids[i] = undefined;
    this.numbers[i * STRIDE + META] = 0;
    this.first += 1;
  }

  setOutcome(seq: number, resultHash: string | undefined, facts: OutcomeFacts | undefined): void {
    const i = seq % this.capacity;
    if (facts?.typedError !== undefined) this.typedErrors += 1;
    const from = resultHash?.startsWith(ERROR_PREFIX) ? ERROR_PREFIX.length : 0;
    const digest = resultHash?.length === from + DIGEST_LENGTH;
    const hi = digest ? hexValue(resultHash, from) : -1;
    const lo = hi < 0 ? -1 : hexValue(resultHash!, from + 8);
    let form = resultHash === undefined ? NO_HASH : from === 0 ? HEX : ERROR_HEX;
    let outcome: OutcomeFacts | string | StoredHash | undefined = mutationTargetOnly(facts) ?? facts;
    if (resultHash !== undefined && lo < 0) {
      form = STRING;
      outcome = { resultHash, facts };
    } else if (lo >= 0) {
      this.numbers[i * STRIDE + RESULT_HI] = hi | 0;
      this.numbers[i * STRIDE + RESULT_LO] = lo | 0;
    }
    if (outcome !== undefined || this.outcomes) (this.outcomes ??= new Array(this.capacity))[i] = outcome;
    this.setForm(seq, form);
  }

  setDeferred(seq: number, outcome: DeferredOutcome): void {
    (this.outcomes ??= new Array(this.capacity))[seq % this.capacity] = outcome;
    this.setForm(seq, DEFERRED);
  }

  settleDeferred(seq: number, outcome: DeferredOutcome): void {
    if (seq >= this.first && seq < this.end && this.outcomes?.[seq % this.capacity] === outcome) this.resultHash(seq);
  }

  releaseDeferred(): void {
    for (let s = this.first; s < this.end; s += 1)
      if (this.form(s) === DEFERRED) (this.outcomes![s % this.capacity] as DeferredOutcome).uncount();
  }

  private form(seq: number): number {
    return this.numbers[(seq % this.capacity) * STRIDE + META] & META_RESULT;
  }

  /** Record `seq` has its outcome now, in this form. */
  private setForm(seq: number, form: number): void {
    if (seq === this.pendingSeq) this.pendingId = undefined;
    const at = (seq % this.capacity) * STRIDE + META;
    this.numbers[at] = (this.numbers[at] & ~META_RESULT) | form;
  }

  /** The index of a tool name in the table, added when new; -1 when the table is full. */
  private toolIndex(toolName: string): number {
    if (this.parsedIndex >= 0 && toolName === this.parsedTool) return this.parsedIndex;
    if (this.tools.length >= MAX_TOOLS) return -1;
    // Copied at its exact size: an array grown by `push` keeps spare slots, in every live run.
    this.tools = [...this.tools, toolName];
    if (toolName === this.parsedTool) this.parsedIndex = this.tools.length - 1;
    return this.tools.length - 1;
  }

  /** Parses a call's args hash into the digest form the ring stores (see {@link parsedTool}). */
  private parse({ toolName, argsHash }: LoggedCall): void {
    if (argsHash === this.parsedArgs && toolName === this.parsedTool) return;
    this.parsedTool = toolName;
    this.parsedArgs = argsHash;
    const from = toolName.length + 1;
    const digest = argsHash.length === from + DIGEST_LENGTH && argsHash.charCodeAt(from - 1) === 0x3a;
    const hi = digest && argsHash.startsWith(toolName) ? hexValue(argsHash, from) : -1;
    const lo = hi < 0 ? -1 : hexValue(argsHash, from + 8);
    this.parsedHi = hi | 0;
    this.parsedLo = lo | 0;
    this.parsedIndex = lo < 0 ? -2 : this.tools.indexOf(toolName);
  }

  /**
   * A timestamp as its int32 offset from the epoch (the first one) when adding it back gives the
   * timestamp exactly (a millisecond clock within 24 days); else the log keeps them as given.
   */
  private storeTime(i: number, timestamp: number): void {
    if (this.end === this.first && !this.times) this.epoch = timestamp;
    const offset = (timestamp - this.epoch) | 0;
    if (!this.times && Object.is(this.epoch + offset, timestamp)) {
      this.numbers[i * STRIDE + TIME] = offset;
      return;
    }
    if (!this.times) {
      const times = new Array<number>(this.capacity);
      for (let s = this.first; s < this.end; s += 1) times[s % this.capacity] = this.timestamp(s);
      this.times = times;
    }
    this.times[i] = timestamp;
  }

  /**
   * Keeps the call id of the record at position `i`: its characters four to a word at the end of
   * the id ring (grown with an eighth to spare when full), or the string when it is long or has a
   * character beyond Latin-1. Returns its META bits.
   */
  private storeId(i: number, toolCallId: string): number {
    const { length } = toolCallId;
    const words = (length + 3) >>> 2;
    const needed = this.idUsed + words;
    if (length <= MAX_PACKED_ID && needed > this.idWords) this.relayout(this.capacity, needed + (needed >>> 3) + 1);
    for (let w = 0; w < words; w += 1) {
      let word = 0;
      for (let c = w * 4; c < Math.min(length, w * 4 + 4); c += 1) {
        const code = length > MAX_PACKED_ID ? 0x100 : toolCallId.charCodeAt(c);
        if (code > 0xff) {
          (this.ids ??= new Array(this.capacity))[i] = toolCallId;
          return ID_STRING;
        }
        word |= code << ((c & 3) * 8);
      }
      this.numbers[this.capacity * STRIDE + ((this.idEnd + w) % this.idWords)] = word;
    }
    if (words > 0) this.idEnd = (this.idEnd + words) % this.idWords;
    this.idUsed += words;
    return ID_PACKED | (length << ID_LENGTH_SHIFT);
  }

  /** Moves the records to a ring of `capacity`, and their packed ids, in order, to an id ring of `idWords`. */
  private relayout(capacity: number, idWords: number): void {
    const numbers = new Int32Array(capacity * STRIDE + idWords);
    const moved = <T>(old: T[] | undefined): T[] | undefined => {
      if (!old) return undefined;
      const grown = new Array<T>(capacity);
      for (let s = this.first; s < this.end; s += 1) grown[s % capacity] = old[s % this.capacity];
      return grown;
    };
    // The packed ids, oldest first, from the oldest record's first word on.
    for (let w = 0, from = this.idEnd - this.idUsed + this.idWords; w < this.idUsed; w += 1)
      numbers[capacity * STRIDE + w] = this.numbers[this.capacity * STRIDE + ((from + w) % this.idWords)];
    for (let s = this.first; s < this.end; s += 1) {
      const from = (s % this.capacity) * STRIDE;
      numbers.set(this.numbers.subarray(from, from + STRIDE), (s % capacity) * STRIDE);
    }
    this.calls = moved(this.calls);
    this.outcomes = moved(this.outcomes);
    this.ids = moved(this.ids);
    this.times = moved(this.times);
    this.numbers = numbers;
    this.capacity = capacity;
    this.idWords = idWords;
    this.idEnd = idWords === 0 ? 0 : this.idUsed % idWords;
  }
}

/** Words of the id ring that a record with this META word holds. */
function idWordsOf(meta: number): number {
  return (meta & META_ID) === ID_PACKED ? ((meta >>> ID_LENGTH_SHIFT) + 3) >>> 2 : 0;
}
