import { boundedToolName } from '../hashing/unknown-tool.js';
import type { OutcomeHash, OutcomeKind, ResultFields, ToolCallRecord } from '../types.js';

/*
 * Memory layout (memory is bounded, and it is paid per record; docs/performance.md,
 * target 4). A span processor holds one history per live run, so the per-record and per-run
 * costs are what matter:
 * - A scope's records live in one array, STRIDE slots per record, used as a ring: no object
 *   header per record and no queue of pointers to records. Capacity doubles up to
 *   `historySize`, so a full history of 30 uses exactly 30 × 4 slots. The tool name is not
 *   stored: an args hash begins with it.
 * - The window shared by all scopes needs no queue of its own while a single scope holds
 *   records (the processor's case: its histories are per run); with several scopes, a queue
 *   says which scope each record of the window belongs to.
 * - Signature lookups scan the scope below INDEX_FROM records (bounded, one scan per call,
 *   where a map per run would cost ~1 KB); larger scopes keep a map from args hash to its newest record and count,
 *   and a link from each record to the next older one of its signature, so that per-call
 *   work does not grow with `historySize` (target 5).
 * - Timestamps are stored as offsets from the scope's first one: small integers (Smis) for
 *   a millisecond clock, where an absolute `Date.now()` would be a boxed heap number.
 * - String instances are shared where the value repeats (the args hash of a signature
 *   already in scope, a result hash equal to the signature's previous one), and stored
 *   strings are flattened (see {@link flat}).
 */

// Slots of one record, STRIDE apart in a scope's ring.
/** The args hash, which names the tool (`<toolName>:<digest>`); else a {@link NamedArgsHash}. */
const CALL = 0;
const TOOL_CALL_ID = 1;
/** `undefined` while pending; the result hash; or a {@link DetailedOutcome}. */
const OUTCOME = 2;
/** The timestamp minus the scope's epoch. */
const TIME = 3;
const STRIDE = 4;

/** Scopes with at least this many records get a {@link SignatureIndex}; smaller ones are scanned. */
const INDEX_FROM = 48;
/** Smallest ring allocated for a scope, in records. */
const MIN_CAPACITY = 4;

/**
 * An outcome with more than a result hash: an unknown tool's name, an outcome kind, a failure
 * identity… (rare: kept out of the common record layout, where the slot holds the hash itself).
 * A loop veto is one with an outcome kind and no hash.
 */
export class DetailedOutcome {
  readonly resultHash: string | undefined;
  readonly unknownToolName: string | undefined;
  readonly outcomeKind: OutcomeKind | undefined;
  readonly failureIdentityHash: string | undefined;
  readonly noProgress: true | undefined;
  readonly mutationTargetHash: string | undefined;
  readonly typedError: string | undefined;
  readonly resultSketch: number | undefined;
  readonly resultShape: number | undefined;
  readonly resultFields: ResultFields | undefined;

  /** `similarity`: keep the result's sketch and fields (only the near-duplicate detectors read them). */
  constructor(outcome: OutcomeHash, resultHash: string | undefined, similarity: boolean) {
    this.resultHash = resultHash;
    this.unknownToolName = boundedToolName(outcome.unknownToolName);
    this.outcomeKind = outcome.outcomeKind;
    this.failureIdentityHash = flat(outcome.failureIdentityHash);
    this.noProgress = outcome.noProgress;
    this.mutationTargetHash = flat(outcome.mutationTargetHash);
    this.typedError = flat(outcome.typedError);
    const evidence = similarity ? outcome.similarity?.() : undefined;
    this.resultSketch = evidence?.resultSketch;
    this.resultShape = evidence?.resultShape;
    this.resultFields = evidence?.resultFields;
  }
}

/** Whether an outcome needs a {@link DetailedOutcome} (anything besides a result hash, or evidence to keep). */
function isDetailed(outcome: OutcomeHash, similarity: boolean): boolean {
  return (
    outcome.resultHash === undefined ||
    (similarity && outcome.similarity !== undefined) ||
    outcome.unknownToolName !== undefined ||
    outcome.outcomeKind !== undefined ||
    outcome.failureIdentityHash !== undefined ||
    outcome.noProgress !== undefined ||
    outcome.mutationTargetHash !== undefined ||
    outcome.typedError !== undefined
  );
}

/** `undefined` while pending; else the result hash, or a {@link DetailedOutcome}. */
type Outcome = string | DetailedOutcome | undefined;

/** An args hash that does not begin with `<toolName>:` (not one of ours), stored with its tool name. */
class NamedArgsHash {
  /** Its signature key (see {@link signatureKey}). */
  readonly key: string;

  constructor(
    readonly toolName: string,
    readonly argsHash: string,
  ) {
    this.key = joinedKey(toolName, argsHash);
  }
}

type Call = string | NamedArgsHash;

/** Whether `argsHash` is `<toolName>:<digest without ':'>`, so that the tool name can be read back from it. */
function namesTool(argsHash: string, toolName: string): boolean {
  if (typeof argsHash !== 'string' || typeof toolName !== 'string') return false;
  const n = toolName.length;
  return argsHash.charCodeAt(n) === 0x3a && argsHash.startsWith(toolName) && argsHash.indexOf(':', n + 1) < 0;
}

/**
 * The key of a (tool, args) signature (OpenClaw's detectors compare both): the args hash itself when it
 * names its tool (`<toolName>:…`, every hash this package computes), else tool and hash joined,
 * so that a pre-computed hash shared by two tools still gives two signatures.
 */
export function signatureKey(toolName: string, argsHash: string): string {
  return namesTool(argsHash, toolName) ? argsHash : joinedKey(toolName, argsHash);
}

/**
 * Tool and hash joined by NUL, each escaped so that neither NUL nor `:` is left in them: the join
 * is unambiguous whatever the two contain (`read\0x` + `h` ≠ `read` + `x\0h`), and the key, with
 * no `:`, never equals a hash that names its tool (those always contain one).
 */
function joinedKey(toolName: string, argsHash: string): string {
  return `${escapeKeyPart(toolName)}\u0000${escapeKeyPart(argsHash)}`;
}

function escapeKeyPart(text: string): string {
  if (!text.includes('\\') && !text.includes(':') && !text.includes('\u0000')) return text;
  // The escape character first, so that the escapes written next stay unambiguous.
  return text.replaceAll('\\', '\\\\').replaceAll(':', '\\c').replaceAll('\u0000', '\\0');
}

/**
 * Returns `s`, flattened. A concatenated string is a rope of several heap objects
 * (`<tool>:<digest>` is built as one, and so is a digest with leading zeros from `padStart`);
 * reading a character makes V8 flatten it in place, and the next GC drops the rope in favour
 * of the flat copy (~40 B instead of ~90 B per args hash). Harmless on engines that do not.
 */
function flat<T extends string | undefined>(s: T): T {
  if (typeof s === 'string') s.charCodeAt(0);
  return s;
}

/** Per-signature lookups of a large scope (see {@link ScopeLog.index}). */
class SignatureIndex {
  /** Signature key → its newest record and how many of its records are in scope. */
  readonly bySignature = new Map<string, { newest: number; count: number }>();
  /** By ring position: the next older record of the same signature (may be evicted: check `first`). */
  older: number[];

  constructor(capacity: number) {
    this.older = new Array<number>(capacity).fill(-1);
  }
}

/**
 * The records of one run scope, oldest first. Records are numbered in append order
 * (`first` ≤ seq < `end`); record `seq` lives at ring position `seq % capacity`.
 */
export class ScopeLog {
  /** Sequence number of the oldest record. */
  first = 0;
  /** Sequence number of the next record. */
  end = 0;
  /** Length of the alternation of two signatures that ends at the newest record (for `ping_pong`). */
  alternationTail = 0;
  /** Records with a typed-error identity: most scopes have none, and then no detector scans for one. */
  typedErrors = 0;
  private slots: unknown[] = [];
  /** Records the ring holds (an integer field: `seq % capacity` must stay an integer modulo). */
  private capacity = 0;
  /** Timestamps are stored minus this (the first timestamp; -0 once offsets stopped being exact). */
  private epoch: number | undefined = undefined;
  /** Present once the scope has reached INDEX_FROM records. */
  private index: SignatureIndex | undefined = undefined;
  /**
   * Without an index: the signature last looked up, its newest record and its count. A call's
   * check, record and outcome all ask about the same signature; this makes it one scan.
   */
  private lastKey: string | undefined = undefined;
  private lastNewest = -1;
  private lastCount = 0;

  readonly runId: string | undefined;

  constructor(runId: string | undefined) {
    // Shared with the caller (the processor's run key): flattening it in place helps both.
    this.runId = flat(runId);
  }

  get length(): number {
    return this.end - this.first;
  }

  toolName(seq: number): string {
    const call = this.slots[this.position(seq) + CALL] as Call;
    return typeof call === 'string' ? call.slice(0, call.lastIndexOf(':')) : call.toolName;
  }

  /** Whether the record is a call of `toolName` (without building the stored name). */
  isToolName(seq: number, toolName: string): boolean {
    const call = this.slots[this.position(seq) + CALL] as Call;
    return typeof call === 'string' ? namesTool(call, toolName) : call.toolName === toolName;
  }

  argsHash(seq: number): string {
    const call = this.slots[this.position(seq) + CALL] as Call;
    return typeof call === 'string' ? call : call.argsHash;
  }

  /** The record's signature key. */
  keyOf(seq: number): string {
    const call = this.slots[this.position(seq) + CALL] as Call;
    return typeof call === 'string' ? call : call.key;
  }

  toolCallId(seq: number): string | undefined {
    return this.slots[this.position(seq) + TOOL_CALL_ID] as string | undefined;
  }

  resultHash(seq: number): string | undefined {
    const outcome = this.slots[this.position(seq) + OUTCOME] as Outcome;
    return typeof outcome === 'object' ? outcome.resultHash : outcome;
  }

  /** Whether the record still waits for its outcome (a loop veto has an outcome, without a hash). */
  isPending(seq: number): boolean {
    return this.slots[this.position(seq) + OUTCOME] === undefined;
  }

  /** The record's outcome details, when it has more than a hash (else `undefined`). */
  details(seq: number): DetailedOutcome | undefined {
    const outcome = this.slots[this.position(seq) + OUTCOME] as Outcome;
    return typeof outcome === 'object' ? outcome : undefined;
  }

  unknownToolName(seq: number): string | undefined {
    return this.details(seq)?.unknownToolName;
  }

  outcomeKind(seq: number): OutcomeKind | undefined {
    return this.details(seq)?.outcomeKind;
  }

  /** The newest record with this signature key, or -1. */
  newestOf(key: string): number {
    if (this.index) return this.index.bySignature.get(key)?.newest ?? -1;
    this.lookUp(key);
    return this.lastNewest;
  }

  /**
   * The next record older than `seq` (a record with this signature) with the same signature.
   * Walk a signature's records from {@link newestOf} for {@link countOf} steps.
   */
  olderOf(seq: number, key: string): number {
    if (this.index) return this.index.older[seq % this.capacity];
    return this.scanBack(seq - 1, key);
  }

  /** Records with this signature key, pending or not. */
  countOf(key: string): number {
    if (this.index) return this.index.bySignature.get(key)?.count ?? 0;
    this.lookUp(key);
    return this.lastCount;
  }

  /** Without an index: scans for the signature's newest record and count, unless it was the last one looked up. */
  private lookUp(key: string): void {
    if (key === this.lastKey) return;
    const newest = this.scanBack(this.end - 1, key);
    let count = 0;
    for (let s = newest; s >= 0; s = this.scanBack(s - 1, key)) count += 1;
    this.lastKey = key;
    this.lastNewest = newest;
    this.lastCount = count;
  }

  /** The newest record at or before `seq` with this signature key, or -1 (walks ring positions: no `%` per record). */
  private scanBack(seq: number, key: string): number {
    if (seq < this.first) return -1;
    const { slots } = this;
    let at = this.position(seq);
    for (let s = seq; s >= this.first; s -= 1) {
      const call = slots[at + CALL] as Call;
      if ((typeof call === 'string' ? call : call.key) === key) return s;
      at = (at === 0 ? slots.length : at) - STRIDE;
    }
    return -1;
  }

  /** Appends a pending record; `historySize` bounds the ring's growth. Returns its sequence number. */
  push(
    toolName: string,
    argsHash: string,
    toolCallId: string | undefined,
    timestamp: number,
    historySize: number,
  ): number {
    const key = signatureKey(toolName, argsHash);
    const newest = this.newestOf(key);
    // Reuse the stored instance of a signature already in scope.
    const storedArgsHash = newest >= 0 ? this.argsHash(newest) : flat(argsHash);
    this.alternationTail = this.nextAlternationTail(argsHash);
    if (this.length === this.capacity) this.grow(this.nextCapacity(historySize));
    const seq = this.end;
    const at = this.position(seq);
    const call: Call = namesTool(storedArgsHash, toolName)
      ? storedArgsHash
      : new NamedArgsHash(toolName, storedArgsHash);
    this.slots[at + CALL] = call;
    this.slots[at + TOOL_CALL_ID] = flat(toolCallId);
    this.slots[at + OUTCOME] = undefined;
    this.slots[at + TIME] = this.timeOffset(timestamp);
    this.end += 1;
    if (this.index) this.indexRecord(seq, typeof call === 'string' ? call : call.key, newest);
    else {
      // newestOf above made this the last signature looked up.
      this.lastNewest = seq;
      this.lastCount += 1;
      if (this.length >= INDEX_FROM) this.buildIndex();
    }
    return seq;
  }

  /** Removes the oldest record. */
  shift(): void {
    const seq = this.first;
    const at = this.position(seq);
    // The evicted record is the oldest of its signature.
    const key = this.keyOf(seq);
    if (this.index) {
      const entry = this.index.bySignature.get(key)!;
      entry.count -= 1;
      if (entry.count === 0) this.index.bySignature.delete(key);
    } else if (key === this.lastKey) {
      this.lastCount -= 1;
      if (this.lastCount === 0) this.lastNewest = -1;
    }
    if (this.details(seq)?.typedError !== undefined) this.typedErrors -= 1;
    for (let k = 0; k < STRIDE; k += 1) this.slots[at + k] = undefined;
    this.first += 1;
    this.alternationTail = Math.min(this.alternationTail, this.length);
  }

  /**
   * Attaches an outcome to a pending record; `resultHash` is the instance to store (see
   * `matchOutcome`). `similarity`: keep its result sketch and fields (default: dropped).
   */
  setOutcome(seq: number, outcome: OutcomeHash, resultHash: string | undefined, similarity = false): void {
    const hash = flat(resultHash);
    if (this.details(seq)?.typedError !== undefined) this.typedErrors -= 1;
    if (outcome.typedError !== undefined) this.typedErrors += 1;
    this.slots[this.position(seq) + OUTCOME] = isDetailed(outcome, similarity)
      ? new DetailedOutcome(outcome, hash, similarity)
      : hash;
  }

  /** The public shape, as OpenClaw's history records it: absent fields omitted. */
  toRecord(seq: number): ToolCallRecord {
    const at = this.position(seq);
    const record: { -readonly [K in keyof ToolCallRecord]: ToolCallRecord[K] } = {
      toolName: this.toolName(seq),
      argsHash: this.argsHash(seq),
      timestamp: this.epoch! + (this.slots[at + TIME] as number),
    };
    const toolCallId = this.slots[at + TOOL_CALL_ID] as string | undefined;
    const resultHash = this.resultHash(seq);
    if (toolCallId !== undefined) record.toolCallId = toolCallId;
    if (this.runId !== undefined) record.runId = this.runId;
    if (resultHash !== undefined) record.resultHash = resultHash;
    const details = this.details(seq);
    if (details) {
      if (details.unknownToolName !== undefined) record.unknownToolName = details.unknownToolName;
      if (details.outcomeKind !== undefined) record.outcomeKind = details.outcomeKind;
      if (details.failureIdentityHash !== undefined) record.failureIdentityHash = details.failureIdentityHash;
      if (details.noProgress !== undefined) record.noProgress = details.noProgress;
      if (details.mutationTargetHash !== undefined) record.mutationTargetHash = details.mutationTargetHash;
      if (details.typedError !== undefined) record.typedError = details.typedError;
      if (details.resultSketch !== undefined) record.resultSketch = details.resultSketch;
      if (details.resultShape !== undefined) record.resultShape = details.resultShape;
      if (details.resultFields !== undefined) record.resultFields = details.resultFields;
    }
    return record;
  }

  private position(seq: number): number {
    return (seq % this.capacity) * STRIDE;
  }

  /**
   * The alternation tail after appending a record with `argsHash`: it extends the previous
   * tail when the new record repeats the hash two places back (and differs from the newest),
   * restarts at 2 when it merely differs from the newest, and at 1 otherwise.
   */
  private nextAlternationTail(argsHash: string): number {
    if (this.length === 0 || this.argsHash(this.end - 1) === argsHash) return 1;
    return this.length >= 2 && this.argsHash(this.end - 2) === argsHash ? this.alternationTail + 1 : 2;
  }

  /**
   * The stored form of a timestamp: its offset from the epoch, as an int32 (a Smi in every
   * V8 tier; the interpreter would box the difference of two heap numbers), when adding it
   * back gives the timestamp exactly — always, for a millisecond clock within 24 days of the
   * scope's first record. Otherwise the scope switches to epoch -0 (x + -0 is x for every x)
   * and stores timestamps as they are.
   */
  private timeOffset(timestamp: number): number {
    this.epoch ??= timestamp;
    if (Object.is(this.epoch, -0)) return timestamp;
    const offset = (timestamp - this.epoch) | 0;
    if (Object.is(this.epoch + offset, timestamp)) return offset;
    for (let s = this.first; s < this.end; s += 1) {
      const at = this.position(s) + TIME;
      this.slots[at] = (this.slots[at] as number) + this.epoch;
    }
    this.epoch = -0;
    return timestamp;
  }

  /** Double, but not beyond `historySize`: a full history of 30 fills a ring of 30 exactly. */
  private nextCapacity(historySize: number): number {
    const doubled = Math.max(this.capacity * 2, MIN_CAPACITY);
    return historySize < doubled ? Math.max(Math.ceil(historySize), this.length + 1) : doubled;
  }

  private grow(capacity: number): void {
    const slots = new Array<unknown>(capacity * STRIDE);
    const older = this.index ? new Array<number>(capacity).fill(-1) : undefined;
    for (let s = this.first; s < this.end; s += 1) {
      const from = this.position(s);
      const to = (s % capacity) * STRIDE;
      for (let k = 0; k < STRIDE; k += 1) slots[to + k] = this.slots[from + k];
      if (older) older[s % capacity] = this.index!.older[s % this.capacity];
    }
    this.slots = slots;
    this.capacity = capacity;
    if (older) this.index!.older = older;
  }

  private buildIndex(): void {
    this.lastKey = undefined;
    this.index = new SignatureIndex(this.capacity);
    for (let s = this.first; s < this.end; s += 1) {
      const key = this.keyOf(s);
      this.indexRecord(s, key, this.index.bySignature.get(key)?.newest ?? -1);
    }
  }

  private indexRecord(seq: number, key: string, previous: number): void {
    const index = this.index!;
    index.older[seq % this.capacity] = previous;
    const entry = index.bySignature.get(key);
    if (entry) {
      entry.newest = seq;
      entry.count += 1;
    } else index.bySignature.set(key, { newest: seq, count: 1 });
  }
}
