import { hexDigitsOf } from '../hashing/hex-digits.js';
import { boundedToolName } from '../hashing/unknown-tool.js';
import type { OutcomeHash, OutcomeKind, ToolCallRecord } from '../types.js';
import type { DeferredOutcome, DeferredOutcomeHolder } from './deferred-outcome.js';
import { isNoProgressOutcome } from './no-progress-outcome.js';

/*
 * Memory layout (memory is bounded, and it is paid per record; docs/performance.md,
 * target 4). A span processor holds one history per live run, so the per-record and per-run
 * costs are what matter:
 * - A scope's records live in one Int32Array used as a ring, STRIDE numbers per record: no
 *   object header per record, no queue of pointers to records, and no string per hash. An
 *   args hash this package computes is `<toolName>:<16 hex digits>`: it is stored as an index
 *   into the scope's table of tool names and the digest's two 32-bit halves; a result hash
 *   (`<16 hex digits>`, or `error:` and them) as its halves and its form. The strings are
 *   rebuilt only where a method returns one. A hash of any other form is kept as a string,
 *   beside the ring.
 * - Call ids are stored as their Latin-1 characters, four to a number, in a second ring in
 *   the same array, in record order (records leave oldest first, so the characters do too).
 * - Capacity doubles up to `historySize`, so a full history of 30 uses exactly 30 records.
 * - Outcomes with more than a hash (a DetailedOutcome), hashes and call ids of other forms
 *   live in arrays by ring position, made on first use; a `write` whose only fact is its
 *   target keeps just the target hash there.
 * - The window shared by all scopes needs no queue of its own while a single scope holds
 *   records (the processor's case: its histories are per run); with several scopes, a queue
 *   says which scope each record of the window belongs to.
 * - Signature lookups scan the scope below INDEX_FROM records (bounded, one scan per call,
 *   where a map per run would cost ~1 KB); larger scopes keep a map from signature key to its
 *   newest record and count, and a link from each record to the next older one of its
 *   signature, so that per-call work does not grow with `historySize` (target 5).
 * - Below INDEX_FROM, the last FILTER_WORDS numbers of the array count the digest-form records
 *   of each bucket of signatures (4 bits a bucket): most calls are new in their run, and a
 *   signature whose bucket is empty is known to be absent without a scan.
 * - Timestamps are stored as int32 offsets from the scope's first one.
 */

// Numbers of one record, STRIDE apart in a scope's ring.
const ARGS_HI = 0;
const ARGS_LO = 1;
const RESULT_HI = 2;
const RESULT_LO = 3;
/** The timestamp minus the scope's epoch. */
const TIME = 4;
/** See the META_* masks. */
const META = 5;
/** Where the call id's characters start in the id ring (a word index). */
const ID_AT = 6;
const STRIDE = 7;

/** Index of the tool name in the scope's table (args hash in digest form). */
const META_TOOL = 0xff;
/** Tool tables hold at most this many names; a call of another tool keeps its args hash as a string. */
const MAX_TOOLS = 0xff;
/** The args hash is a string in `calls` (a {@link StoredCall}). */
const META_ARGS_STRING = 1 << 8;
const RESULT_SHIFT = 9;
const META_RESULT = 7 << RESULT_SHIFT;
/** Still waiting for its outcome. */
const RESULT_PENDING = 0;
/** `<hex>` in RESULT_HI/LO. */
const RESULT_HEX = 1 << RESULT_SHIFT;
/** `error:<hex>` in RESULT_HI/LO. */
const RESULT_ERROR_HEX = 2 << RESULT_SHIFT;
/** A string in `outcomes`. */
const RESULT_STRING = 3 << RESULT_SHIFT;
/** A {@link DetailedOutcome} in `outcomes`, which holds the hash (if any). */
const RESULT_DETAILED = 4 << RESULT_SHIFT;
/** A {@link DeferredOutcome} in `outcomes`: a successful result, hashed when its hash is first read. */
const RESULT_DEFERRED = 5 << RESULT_SHIFT;
/** With RESULT_HEX or RESULT_ERROR_HEX: a `write-mutation` whose target hash is the string in `outcomes`. */
const META_MUTATION = 1 << 12;
const ID_SHIFT = 13;
const META_ID = 3 << ID_SHIFT;
const ID_NONE = 0;
/** Latin-1 characters in the id ring; their count in META_ID_LENGTH. */
const ID_PACKED = 1 << ID_SHIFT;
/** A string in `ids`. */
const ID_STRING = 2 << ID_SHIFT;
const ID_LENGTH_SHIFT = 16;
/** Longest call id packed (longer ones are kept as strings). */
const MAX_PACKED_ID = 0x7fff;

const ERROR_PREFIX = 'error:';
const DIGEST_LENGTH = 16;

/** Scopes with at least this many records get a {@link SignatureIndex}; smaller ones are scanned. */
const INDEX_FROM = 48;
/** Rebuilt strings a scope gives out before it keeps them until its next change (see `ScopeLog.keepText`). */
const KEEP_TEXTS_AFTER = 8;
/** Numbers at the end of a scope's array holding the signature filter, 8 buckets of 4 bits each. */
const FILTER_WORDS = 16;
const FILTER_BUCKETS = FILTER_WORDS * 8;
/** A bucket holding this many records is saturated: it is recounted when one leaves. */
const FILTER_FULL = 15;
/** Smallest ring allocated for a scope, in records. */
const MIN_CAPACITY = 4;
const NO_NUMBERS = new Int32Array(0);

/**
 * An outcome with more than a result hash: an unknown tool's name, an outcome kind, a failure
 * identity… (rare: kept out of the common record layout, where the ring holds the hash itself).
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
  readonly explainedFailure: true | undefined;
  readonly resultSketch: number | undefined;
  readonly resultShape: number | undefined;

  /** `similarity`: keep the result's sketch and shape (only the near-duplicate detectors read them). */
  constructor(outcome: OutcomeHash, resultHash: string | undefined, similarity: boolean) {
    this.resultHash = resultHash;
    this.unknownToolName = boundedToolName(outcome.unknownToolName);
    this.outcomeKind = outcome.outcomeKind;
    this.failureIdentityHash = flat(outcome.failureIdentityHash);
    this.noProgress = outcome.noProgress;
    this.mutationTargetHash = flat(outcome.mutationTargetHash);
    this.typedError = flat(outcome.typedError);
    this.explainedFailure = outcome.explainedFailure;
    const evidence = similarity ? outcome.similarity?.() : undefined;
    this.resultSketch = evidence?.resultSketch;
    this.resultShape = evidence?.resultShape;
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
    outcome.typedError !== undefined ||
    outcome.explainedFailure !== undefined
  );
}

/** Whether a detailed outcome is only a `write`'s target (then its target hash is all that is kept besides the hash). */
function isMutationOnly(outcome: OutcomeHash, similarity: boolean): boolean {
  return (
    outcome.outcomeKind === 'write-mutation' &&
    outcome.mutationTargetHash !== undefined &&
    outcome.resultHash !== undefined &&
    !(similarity && outcome.similarity !== undefined) &&
    outcome.unknownToolName === undefined &&
    outcome.failureIdentityHash === undefined &&
    outcome.noProgress === undefined &&
    outcome.typedError === undefined &&
    outcome.explainedFailure === undefined
  );
}

/** An args hash kept as a string: one that is not `<toolName>:<16 hex digits>`, or a tool the table has no room for. */
class StoredCall {
  /** Its signature key (see {@link signatureKey}). */
  readonly key: string;

  constructor(
    readonly toolName: string,
    readonly argsHash: string,
  ) {
    this.key = signatureKey(toolName, argsHash);
  }
}

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
 * Returns `s`, flattened. A concatenated string is a rope of several heap objects; reading a
 * character makes V8 flatten it in place, and the next GC drops the rope in favour of the
 * flat copy. Harmless on engines that do not.
 */
function flat<T extends string | undefined>(s: T): T {
  if (typeof s === 'string') s.charCodeAt(0);
  return s;
}

/** Each ASCII character's value as a lowercase hex digit, -1 for every other character. */
const HEX_DIGIT_VALUES = Int8Array.from({ length: 128 }, (_, c) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1,
);

/** The value of 8 lowercase hex digits of `text` from `at` (0 ≤ value < 2³²), or -1. */
function hex8(text: string, at: number): number {
  // A table read and no branch per digit: half the time of comparing each character's ranges.
  let value = 0;
  let invalid = 0;
  for (let i = at; i < at + 8; i += 1) {
    const c = text.charCodeAt(i);
    const digit = c < 128 ? HEX_DIGIT_VALUES[c] : -1;
    invalid |= digit;
    value = (value << 4) | (digit & 15);
  }
  return invalid < 0 ? -1 : value >>> 0;
}

/**
 * Words of the id ring a call id takes (four characters each): 0 for none or an empty one, -1
 * for one kept as a string instead as it is too long. (One with a character beyond Latin-1 is
 * told apart as it is packed, see `ScopeLog.packId`: a walk over its characters costs about
 * 40 instructions each, and packing walks them anyway.)
 */
function packedWords(toolCallId: string | undefined): number {
  if (toolCallId === undefined) return 0;
  if (toolCallId.length > MAX_PACKED_ID) return -1;
  return (toolCallId.length + 3) >>> 2;
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
export class ScopeLog implements DeferredOutcomeHolder {
  /** Sequence number of the oldest record. */
  first = 0;
  /** Sequence number of the next record. */
  end = 0;
  /** Length of the alternation of two signatures that ends at the newest record (for `ping_pong`). */
  alternationTail = 0;
  /** Records with a typed-error identity: most scopes have none, and then no detector scans for one. */
  typedErrors = 0;
  /** The record ring (capacity × STRIDE), then the id ring (idWords). */
  private numbers: Int32Array = NO_NUMBERS;
  /** Records the ring holds (an integer field: `seq % capacity` must stay an integer modulo). */
  private capacity = 0;
  /** Words of the id ring, each holding four Latin-1 characters. */
  private idWords = 0;
  /** Words of the id ring in use, and the next free one. */
  private idUsed = 0;
  private idEnd = 0;
  /** The tool names of digest-form args hashes, by index. */
  private tools: string[] = [];
  /** By ring position: args hashes kept as strings. */
  private calls: (StoredCall | undefined)[] | undefined = undefined;
  /** By ring position: a DetailedOutcome, a result hash kept as a string, a mutation target hash, or a DeferredOutcome. */
  private outcomes: (DetailedOutcome | DeferredOutcome | string | undefined)[] | undefined = undefined;
  /** By ring position: call ids kept as strings. */
  private ids: (string | undefined)[] | undefined = undefined;
  /** By ring position: timestamps, once one was not an exact int32 offset from the epoch. */
  private times: number[] | undefined = undefined;
  private epoch = 0;
  /** Present once the scope has reached INDEX_FROM records. */
  private index: SignatureIndex | undefined = undefined;
  /** By ring position, two each: args and result hashes rebuilt since the last change, once kept (see {@link keepText}). */
  private texts: (string | undefined)[] | undefined = undefined;
  /** Strings rebuilt since the last change while none are kept. */
  private rebuilt = 0;
  /**
   * Without an index: the signature last looked up, its newest record and its count. A call's
   * check, record and outcome all ask about the same signature; this makes it one scan.
   */
  private lastKey: string | undefined = undefined;
  private lastNewest = -1;
  private lastCount = 0;
  /**
   * The newest pending record with a call id, and that id as given, until the record has its
   * outcome: a run holds no id string beyond the one of a call in flight.
   */
  private pendingIdSeq = -1;
  private pendingId: string | undefined = undefined;
  /** The key last parsed for a scan: whether it is `<tool>:<digest>`, the tool's index (-1: none), the digest's halves. */
  private probeKey: string | undefined = undefined;
  private probeDigest = false;
  private probeTool = -1;
  private probeHi = 0;
  private probeLo = 0;
  /** The (tool, args hash) pair whose signature key was last asked for, and that key. */
  private pairTool: string | undefined = undefined;
  private pairArgs: string | undefined = undefined;
  private pairKey = '';

  readonly runId: string | undefined;

  constructor(runId: string | undefined) {
    // Shared with the caller (the processor's run key): flattening it in place helps both.
    this.runId = flat(runId);
  }

  get length(): number {
    return this.end - this.first;
  }

  toolName(seq: number): string {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    return meta & META_ARGS_STRING ? this.calls![i]!.toolName : this.tools[meta & META_TOOL];
  }

  /** Whether the record is a call of `toolName`. */
  isToolName(seq: number, toolName: string): boolean {
    return this.toolName(seq) === toolName;
  }

  argsHash(seq: number): string {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    if (meta & META_ARGS_STRING) return this.calls![i]!.argsHash;
    const cached = this.texts?.[2 * i];
    if (cached !== undefined) return cached;
    const text = flat(
      `${this.tools[meta & META_TOOL]}:${hexDigitsOf(this.numbers[at + ARGS_HI], this.numbers[at + ARGS_LO])}`,
    );
    this.keepText(2 * i, text);
    return text;
  }

  /**
   * Whether the record's args hash is `argsHash`, compared where it is stored: a hash in digest
   * form is matched by its tool index and halves, building no string.
   */
  hasArgsHash(seq: number, argsHash: string): boolean {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    if (meta & META_ARGS_STRING) return this.calls![i]!.argsHash === argsHash;
    // A digest-form record's hash names its tool, so its signature key is the hash itself.
    this.probe(argsHash);
    return (
      (meta & META_TOOL) === this.probeTool &&
      this.numbers[at + ARGS_LO] === this.probeLo &&
      this.numbers[at + ARGS_HI] === this.probeHi
    );
  }

  /**
   * {@link signatureKey}, kept for the pair last asked about: the detectors, the record and
   * its outcome all ask for the key of the same call, whose strings are the same objects.
   */
  keyFor(toolName: string, argsHash: string): string {
    if (argsHash === this.pairArgs && toolName === this.pairTool) return this.pairKey;
    const key = signatureKey(toolName, argsHash);
    this.pairTool = toolName;
    this.pairArgs = argsHash;
    this.pairKey = key;
    return key;
  }

  /** Record `seq` has its outcome: its id, if it was the pending one, is read from the ring from now on. */
  private forgetPendingId(seq: number): void {
    if (seq !== this.pendingIdSeq) return;
    this.pendingIdSeq = -1;
    this.pendingId = undefined;
  }

  /**
   * The call's outcome is stored, its last use of the pair: the strings are let go, so that an
   * idle run does not keep them (a tool name is often a fresh copy per call).
   */
  private forgetPair(): void {
    this.pairTool = undefined;
    this.pairArgs = undefined;
    this.pairKey = '';
  }

  /** The record's signature key. */
  keyOf(seq: number): string {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    return this.numbers[at + META] & META_ARGS_STRING ? this.calls![i]!.key : this.argsHash(seq);
  }

  toolCallId(seq: number): string | undefined {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    const form = meta & META_ID;
    if (form === ID_NONE) return undefined;
    if (form === ID_STRING) return this.ids![i];
    const length = meta >>> ID_LENGTH_SHIFT;
    const codes = new Array<number>(length);
    const from = this.numbers[at + ID_AT];
    for (let c = 0; c < length; c += 1) codes[c] = this.idChar(from, c);
    return String.fromCharCode(...codes);
  }

  /** Whether the record's call id is `toolCallId` (compared where it is stored, building no string). */
  hasToolCallId(seq: number, toolCallId: string | undefined): boolean {
    // The newest pending call's own id, as it was given: its outcome's id is most often the
    // same string, told equal at once, where the packed characters compare one by one.
    if (seq === this.pendingIdSeq) return toolCallId === this.pendingId;
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    const form = meta & META_ID;
    if (form === ID_NONE || toolCallId === undefined) return form === ID_NONE && toolCallId === undefined;
    if (form === ID_STRING) return this.ids![i] === toolCallId;
    const length = meta >>> ID_LENGTH_SHIFT;
    if (toolCallId.length !== length) return false;
    const from = this.numbers[at + ID_AT];
    for (let c = 0; c < length; c += 1) if (this.idChar(from, c) !== toolCallId.charCodeAt(c)) return false;
    return true;
  }

  resultHash(seq: number): string | undefined {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    let form = this.numbers[at + META] & META_RESULT;
    if (form === RESULT_PENDING) return undefined;
    if (form === RESULT_DEFERRED) form = this.settle(seq);
    if (form !== RESULT_HEX && form !== RESULT_ERROR_HEX) {
      const outcome = this.outcomes![i]!;
      return typeof outcome === 'string' ? outcome : outcome.resultHash;
    }
    const cached = this.texts?.[2 * i + 1];
    if (cached !== undefined) return cached;
    const digest = hexDigitsOf(this.numbers[at + RESULT_HI], this.numbers[at + RESULT_LO]);
    const text = form === RESULT_HEX ? digest : flat(ERROR_PREFIX + digest);
    this.keepText(2 * i + 1, text);
    return text;
  }

  /**
   * Keeps a rebuilt string until the scope next changes, once a reader has asked for more than a
   * few: the opt-in detectors read every record's strings, several times per call (each string
   * is then built once per call), while the default ones ask for one or two (for which an array
   * per call would cost more than it saves). Nothing is kept between calls.
   */
  private keepText(slot: number, text: string): void {
    if (this.texts === undefined) {
      this.rebuilt += 1;
      if (this.rebuilt < KEEP_TEXTS_AFTER) return;
      this.texts = new Array<string | undefined>(2 * this.capacity);
    }
    this.texts[slot] = text;
  }

  /** The records changed: rebuilt strings are dropped (see {@link keepText}). */
  private dropTexts(): void {
    this.texts = undefined;
    this.rebuilt = 0;
  }

  /**
   * Whether the record has a result hash (a pending record and a loop veto have none), answered
   * without hashing a deferred outcome (it always has one).
   */
  hasResultHash(seq: number): boolean {
    const i = seq % this.capacity;
    const form = this.numbers[i * STRIDE + META] & META_RESULT;
    if (form === RESULT_PENDING) return false;
    if (form === RESULT_DETAILED) return (this.outcomes![i] as DetailedOutcome).resultHash !== undefined;
    return true;
  }

  /**
   * Whether the record's outcome is a no-progress one (an error, or a result flagged so; see
   * `isNoProgressOutcome`), answered without hashing a deferred outcome (a success without
   * facts: never). False for a record without a hash.
   */
  isNoProgressResult(seq: number): boolean {
    const i = seq % this.capacity;
    const form = this.numbers[i * STRIDE + META] & META_RESULT;
    if (form === RESULT_ERROR_HEX) return true;
    if (form === RESULT_HEX || form === RESULT_DEFERRED || form === RESULT_PENDING) return false;
    const outcome = this.outcomes![i] as DetailedOutcome | string;
    if (typeof outcome === 'string') return isNoProgressOutcome(outcome, undefined);
    return outcome.resultHash !== undefined && isNoProgressOutcome(outcome.resultHash, outcome.noProgress);
  }

  /** Whether the record still waits for its outcome (a loop veto has an outcome, without a hash). */
  isPending(seq: number): boolean {
    return (this.numbers[this.position(seq) + META] & META_RESULT) === RESULT_PENDING;
  }

  /** The record's outcome details, when it has more than a hash (else `undefined`); hashes a deferred `write`. */
  details(seq: number): DetailedOutcome | undefined {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    let meta = this.numbers[at + META];
    if ((meta & META_RESULT) === RESULT_DEFERRED) {
      if (!(meta & META_MUTATION)) return undefined;
      this.settle(seq);
      meta = this.numbers[at + META];
    }
    if ((meta & META_RESULT) === RESULT_DETAILED) return this.outcomes![i] as DetailedOutcome;
    if (!(meta & META_MUTATION)) return undefined;
    // Built once a reader asks (only detectors of writes do), then kept as any other.
    const mutationTargetHash = this.outcomes![i] as string;
    const details = new DetailedOutcome(
      { outcomeKind: 'write-mutation', mutationTargetHash },
      this.resultHash(seq),
      false,
    );
    this.outcomes![i] = details;
    this.numbers[at + META] = (meta & ~(META_RESULT | META_MUTATION)) | RESULT_DETAILED;
    return details;
  }

  /** A `write-mutation`'s target hash, read without hashing a deferred outcome. */
  mutationTargetHash(seq: number): string | undefined {
    const i = seq % this.capacity;
    const meta = this.numbers[i * STRIDE + META];
    if (!(meta & META_MUTATION)) return this.storedDetails(seq)?.mutationTargetHash;
    const outcome = this.outcomes![i]!;
    return typeof outcome === 'string' ? outcome : outcome.mutationTargetHash;
  }

  /** The record's typed-error identity, read without hashing a deferred outcome (which has none). */
  typedError(seq: number): string | undefined {
    return this.storedDetails(seq)?.typedError;
  }

  /** Whether the record failed with an explained error (see `OutcomeHash.explainedFailure`); errors are never deferred. */
  explainedFailure(seq: number): boolean {
    return this.storedDetails(seq)?.explainedFailure === true;
  }

  unknownToolName(seq: number): string | undefined {
    return this.storedDetails(seq)?.unknownToolName;
  }

  outcomeKind(seq: number): OutcomeKind | undefined {
    if (this.numbers[this.position(seq) + META] & META_MUTATION) return 'write-mutation';
    return this.storedDetails(seq)?.outcomeKind;
  }

  /** The record's DetailedOutcome when one is stored (not one rebuilt from a mutation target). */
  private storedDetails(seq: number): DetailedOutcome | undefined {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    return (this.numbers[at + META] & META_RESULT) === RESULT_DETAILED
      ? (this.outcomes![i] as DetailedOutcome)
      : undefined;
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

  /**
   * Whether records with this signature key may be in scope (`false` is certain). Without an
   * index, the filter answers: it counts the digest-form records, the only ones a key in digest
   * form of a known tool can match (a tool is known from its first record on).
   */
  mayHold(key: string): boolean {
    if (this.index) return this.index.bySignature.has(key);
    this.probe(key);
    return this.probeTool < 0 || this.filterCount(this.probeTool, this.probeLo) > 0;
  }

  /** Without an index: scans for the signature's newest record and count, unless it was the last one looked up. */
  private lookUp(key: string): void {
    if (key === this.lastKey) return;
    const newest = this.mayHold(key) ? this.scanBack(this.end - 1, key) : -1;
    let count = 0;
    for (let s = newest; s >= 0; s = this.scanBack(s - 1, key)) count += 1;
    this.lastKey = key;
    this.lastNewest = newest;
    this.lastCount = count;
  }

  /** Parses a signature key into the digest form the ring stores (once per key: a scan compares numbers). */
  private probe(key: string): void {
    if (key === this.probeKey) return;
    this.probeKey = key;
    this.probeTool = -1;
    this.probeDigest = false;
    const at = key.length - DIGEST_LENGTH;
    if (at < 1 || key.charCodeAt(at - 1) !== 0x3a) return;
    const hi = hex8(key, at);
    const lo = hi < 0 ? -1 : hex8(key, at + 8);
    if (lo < 0) return;
    this.probeDigest = true;
    this.probeHi = hi | 0;
    this.probeLo = lo | 0;
    const { tools } = this;
    for (let t = 0; t < tools.length; t += 1) {
      if (tools[t].length === at - 1 && key.startsWith(tools[t])) {
        this.probeTool = t;
        return;
      }
    }
  }

  /** The newest record at or before `seq` with this signature key, or -1 (walks ring positions: no `%` per record). */
  private scanBack(seq: number, key: string): number {
    if (seq < this.first) return -1;
    this.probe(key);
    const { numbers, probeTool, probeHi, probeLo } = this;
    const top = this.capacity * STRIDE;
    let at = this.position(seq);
    for (let s = seq; s >= this.first; s -= 1) {
      const meta = numbers[at + META];
      if (meta & META_ARGS_STRING) {
        if (this.calls![at / STRIDE]!.key === key) return s;
      } else if (
        (meta & META_TOOL) === probeTool &&
        numbers[at + ARGS_LO] === probeLo &&
        numbers[at + ARGS_HI] === probeHi
      )
        return s;
      at = (at === 0 ? top : at) - STRIDE;
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
    const key = this.keyFor(toolName, argsHash);
    const newest = this.newestOf(key);
    this.dropTexts();
    if (this.length === this.capacity) this.relayout(this.nextCapacity(historySize), this.idWords);
    const idWords = packedWords(toolCallId);
    if (idWords > 0 && this.idUsed + idWords > this.idWords) {
      const needed = this.idUsed + idWords;
      // An eighth to spare: ids of varying length then rarely make the ring grow again.
      this.relayout(this.capacity, needed + (needed >>> 3) + 1);
    }
    const seq = this.end;
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const { numbers } = this;
    // The key was parsed by the lookup above (or is parsed now, in an empty scope).
    this.probe(key);
    const { probeHi, probeLo } = this;
    const tool = key === argsHash && this.probeDigest ? this.toolIndex(toolName) : -1;
    let meta: number;
    if (tool >= 0) {
      meta = tool;
      numbers[at + ARGS_HI] = probeHi;
      numbers[at + ARGS_LO] = probeLo;
    } else {
      meta = META_ARGS_STRING;
      // Reuse the stored instance of a signature already in scope.
      const stored = newest >= 0 && (numbers[this.position(newest) + META] & META_ARGS_STRING) !== 0;
      (this.calls ??= new Array(this.capacity))[i] = stored
        ? this.calls[newest % this.capacity]
        : new StoredCall(flat(toolName), flat(argsHash));
    }
    numbers[at + TIME] = this.timeOffset(timestamp, i);
    if (toolCallId === undefined) numbers[at + META] = meta;
    else {
      const packedAt = idWords < 0 ? -1 : this.packId(toolCallId, idWords);
      if (packedAt < 0) {
        numbers[at + META] = meta | ID_STRING;
        (this.ids ??= new Array(this.capacity))[i] = flat(toolCallId);
      } else {
        numbers[at + META] = meta | ID_PACKED | (toolCallId.length << ID_LENGTH_SHIFT);
        numbers[at + ID_AT] = packedAt;
      }
      this.pendingIdSeq = seq;
      this.pendingId = toolCallId;
    }
    this.end += 1;
    this.alternationTail = this.nextAlternationTail(seq);
    if (this.index) this.indexRecord(seq, key, newest);
    else {
      if (tool >= 0) this.filterAdd(tool, probeLo);
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
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const meta = this.numbers[at + META];
    if (this.index) {
      // The evicted record is the oldest of its signature.
      const key = this.keyOf(seq);
      const entry = this.index.bySignature.get(key)!;
      entry.count -= 1;
      if (entry.count === 0) this.index.bySignature.delete(key);
    } else {
      if (!(meta & META_ARGS_STRING)) this.filterRemove(meta & META_TOOL, this.numbers[at + ARGS_LO], seq);
      if (this.lastNewest >= 0 && this.sameSignature(seq, this.lastNewest)) {
        this.lastCount -= 1;
        if (this.lastCount === 0) this.lastNewest = -1;
      }
    }
    if (this.storedDetails(seq)?.typedError !== undefined) this.typedErrors -= 1;
    // Evicted unread: its result is never hashed.
    if ((meta & META_RESULT) === RESULT_DEFERRED) (this.outcomes![i] as DeferredOutcome).drop();
    this.dropTexts();
    if ((meta & META_ID) === ID_PACKED) this.idUsed -= ((meta >>> ID_LENGTH_SHIFT) + 3) >>> 2;
    const position = i;
    if (this.calls) this.calls[position] = undefined;
    if (this.outcomes) this.outcomes[position] = undefined;
    if (this.ids) this.ids[position] = undefined;
    this.numbers[at + META] = 0;
    this.first += 1;
    this.alternationTail = Math.min(this.alternationTail, this.length);
  }

  /**
   * Attaches an outcome to a pending record; `resultHash` is the hash to store (the outcome's,
   * or an equal one). `similarity`: keep its result sketch and fields (default: dropped).
   */
  setOutcome(seq: number, outcome: OutcomeHash, resultHash: string | undefined, similarity = false): void {
    this.forgetPair();
    this.forgetPendingId(seq);
    if (this.storedDetails(seq)?.typedError !== undefined) this.typedErrors -= 1;
    this.dropTexts();
    this.store(seq, outcome, resultHash, similarity);
  }

  /**
   * Attaches a deferred outcome to a pending record: a successful result without facts, hashed
   * when a reader first asks for its hash (see {@link settle}), never if its record leaves unread.
   */
  setDeferredOutcome(seq: number, outcome: DeferredOutcome): void {
    this.forgetPair();
    this.forgetPendingId(seq);
    const i = seq % this.capacity;
    const at = i * STRIDE;
    if (this.storedDetails(seq)?.typedError !== undefined) this.typedErrors -= 1;
    this.dropTexts();
    const mutation = outcome.mutationTargetHash === undefined ? 0 : META_MUTATION;
    this.numbers[at + META] = (this.numbers[at + META] & ~(META_RESULT | META_MUTATION)) | RESULT_DEFERRED | mutation;
    (this.outcomes ??= new Array(this.capacity))[i] = outcome;
    outcome.heldBy(this, seq);
  }

  settleDeferred(seq: number, outcome: DeferredOutcome): void {
    if (seq < this.first || seq >= this.end) return;
    const i = seq % this.capacity;
    if ((this.numbers[i * STRIDE + META] & META_RESULT) === RESULT_DEFERRED && this.outcomes![i] === outcome)
      this.settle(seq);
  }

  /** Deferred outcomes still unhashed stop counting against their budget (see `DeferredOutcome.uncount`). */
  uncountDeferred(): void {
    for (let s = this.first; s < this.end; s += 1) {
      const i = s % this.capacity;
      if ((this.numbers[i * STRIDE + META] & META_RESULT) === RESULT_DEFERRED)
        (this.outcomes![i] as DeferredOutcome).uncount();
    }
  }

  /**
   * Hashes a deferred outcome and stores its hash as any other (no rebuilt string depends on
   * it, so none is dropped); returns the record's result form now.
   */
  private settle(seq: number): number {
    const i = seq % this.capacity;
    const outcome = (this.outcomes![i] as DeferredOutcome).resolve();
    this.store(seq, outcome, outcome.resultHash, false);
    return this.numbers[i * STRIDE + META] & META_RESULT;
  }

  /** Writes an outcome into a record whose previous outcome (if any) was accounted for. */
  private store(seq: number, outcome: OutcomeHash, resultHash: string | undefined, similarity: boolean): void {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const position = i;
    if (outcome.typedError !== undefined) this.typedErrors += 1;
    const { numbers } = this;
    let meta = numbers[at + META] & ~(META_RESULT | META_MUTATION);
    if (this.outcomes) this.outcomes[position] = undefined;
    const form = resultHash === undefined ? -1 : this.storeResult(at, resultHash);
    const detailed = isDetailed(outcome, similarity);
    if (detailed && form > 0 && isMutationOnly(outcome, similarity)) {
      meta |= form | META_MUTATION;
      (this.outcomes ??= new Array(this.capacity))[position] = flat(outcome.mutationTargetHash);
    } else if (detailed) {
      meta |= RESULT_DETAILED;
      (this.outcomes ??= new Array(this.capacity))[position] = new DetailedOutcome(
        outcome,
        flat(resultHash),
        similarity,
      );
    } else if (form > 0) meta |= form;
    else {
      meta |= RESULT_STRING;
      (this.outcomes ??= new Array(this.capacity))[position] = flat(resultHash);
    }
    numbers[at + META] = meta;
  }

  /** Stores a result hash of digest form in the ring; returns its form, or 0 for another form. */
  private storeResult(at: number, resultHash: string): number {
    const from = resultHash.startsWith(ERROR_PREFIX) ? ERROR_PREFIX.length : 0;
    if (resultHash.length !== from + DIGEST_LENGTH) return 0;
    // The check and the value in one pass over the digits (every outcome stores one).
    const hi = hex8(resultHash, from);
    const lo = hi < 0 ? -1 : hex8(resultHash, from + 8);
    if (lo < 0) return 0;
    this.numbers[at + RESULT_HI] = hi | 0;
    this.numbers[at + RESULT_LO] = lo | 0;
    return from === 0 ? RESULT_HEX : RESULT_ERROR_HEX;
  }

  /** The public shape, as OpenClaw's history records it: absent fields omitted. */
  toRecord(seq: number): ToolCallRecord {
    const i = seq % this.capacity;
    const at = i * STRIDE;
    const record: { -readonly [K in keyof ToolCallRecord]: ToolCallRecord[K] } = {
      toolName: this.toolName(seq),
      argsHash: this.argsHash(seq),
      timestamp: this.times ? this.times[i] : this.epoch + this.numbers[at + TIME],
    };
    const toolCallId = this.toolCallId(seq);
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
      if (details.explainedFailure !== undefined) record.explainedFailure = details.explainedFailure;
      if (details.resultSketch !== undefined) record.resultSketch = details.resultSketch;
      if (details.resultShape !== undefined) record.resultShape = details.resultShape;
    }
    return record;
  }

  private position(seq: number): number {
    return (seq % this.capacity) * STRIDE;
  }

  /** The index of a tool name in the table, added when absent; -1 when the table is full. */
  private toolIndex(toolName: string): number {
    const { tools } = this;
    for (let t = 0; t < tools.length; t += 1) if (tools[t] === toolName) return t;
    if (tools.length >= MAX_TOOLS) return -1;
    // Copied at its exact size: a table grown by `push` keeps spare slots.
    const grown = new Array<string>(tools.length + 1);
    for (let t = 0; t < tools.length; t += 1) grown[t] = tools[t];
    grown[tools.length] = flat(toolName);
    this.tools = grown;
    // A key parsed before the tool was known found no tool index.
    this.probeKey = undefined;
    return tools.length;
  }

  /** Whether two records have the same signature. */
  private sameSignature(a: number, b: number): boolean {
    const { numbers } = this;
    const atA = this.position(a);
    const atB = this.position(b);
    const metaA = numbers[atA + META];
    const metaB = numbers[atB + META];
    if ((metaA | metaB) & META_ARGS_STRING) return this.keyOf(a) === this.keyOf(b);
    return (
      (metaA & META_TOOL) === (metaB & META_TOOL) &&
      numbers[atA + ARGS_LO] === numbers[atB + ARGS_LO] &&
      numbers[atA + ARGS_HI] === numbers[atB + ARGS_HI]
    );
  }

  /** Whether two records have equal args hashes (a hash kept as a string may equal another tool's). */
  private sameArgsHash(a: number, b: number): boolean {
    const { numbers } = this;
    if ((numbers[this.position(a) + META] | numbers[this.position(b) + META]) & META_ARGS_STRING)
      return this.argsHash(a) === this.argsHash(b);
    return this.sameSignature(a, b);
  }

  /**
   * The alternation tail once record `seq` (the newest) is appended: it extends the previous
   * tail when the record repeats the args hash two places back (and differs from the one
   * before it), restarts at 2 when it merely differs from the one before it, and at 1 otherwise.
   */
  private nextAlternationTail(seq: number): number {
    const before = this.length - 1;
    if (before === 0 || this.sameArgsHash(seq, seq - 1)) return 1;
    return before >= 2 && this.sameArgsHash(seq, seq - 2) ? this.alternationTail + 1 : 2;
  }

  /**
   * The stored form of a timestamp: its offset from the epoch, as an int32, when adding it
   * back gives the timestamp exactly — always, for a millisecond clock within 24 days of the
   * scope's first record. Otherwise the scope keeps its timestamps as they are, in `times`.
   */
  private timeOffset(timestamp: number, i: number): number {
    if (this.length === 0 && !this.times) this.epoch = timestamp;
    if (!this.times) {
      const offset = (timestamp - this.epoch) | 0;
      if (Object.is(this.epoch + offset, timestamp)) return offset;
      const times = new Array<number>(this.capacity);
      for (let s = this.first; s < this.end; s += 1) {
        times[s % this.capacity] = this.epoch + this.numbers[this.position(s) + TIME];
      }
      this.times = times;
    }
    this.times[i] = timestamp;
    return 0;
  }

  /**
   * Writes a call id's characters at the end of the id ring (which has room); returns where they
   * start, or -1 (nothing taken) for an id with a character beyond Latin-1, to be kept as a string.
   */
  private packId(toolCallId: string, words: number): number {
    if (words === 0) return 0;
    const base = this.capacity * STRIDE;
    const from = this.idEnd;
    for (let w = 0; w < words; w += 1) {
      let word = 0;
      for (let k = 0; k < 4; k += 1) {
        const i = w * 4 + k;
        if (i >= toolCallId.length) break;
        const code = toolCallId.charCodeAt(i);
        if (code > 0xff) return -1;
        word |= code << (k * 8);
      }
      this.numbers[base + ((from + w) % this.idWords)] = word;
    }
    this.idEnd = (from + words) % this.idWords;
    this.idUsed += words;
    return from;
  }

  /** Character `i` of the call id packed from word `from` of the id ring. */
  private idChar(from: number, i: number): number {
    const word = this.numbers[this.capacity * STRIDE + ((from + (i >>> 2)) % this.idWords)];
    return (word >>> ((i & 3) * 8)) & 0xff;
  }

  /** Double, but not beyond `historySize`: a full history of 30 fills a ring of 30 exactly. */
  private nextCapacity(historySize: number): number {
    const doubled = Math.max(this.capacity * 2, MIN_CAPACITY);
    return historySize < doubled ? Math.max(Math.ceil(historySize), this.length + 1) : doubled;
  }

  /** Moves the records to a ring of `capacity` and their packed ids, in order, to an id ring of `idWords`. */
  private relayout(capacity: number, idWords: number): void {
    const numbers = new Int32Array(capacity * STRIDE + idWords + FILTER_WORDS);
    const base = capacity * STRIDE;
    const filterFrom = this.numbers.length - FILTER_WORDS;
    if (filterFrom >= 0)
      for (let w = 0; w < FILTER_WORDS; w += 1)
        numbers[numbers.length - FILTER_WORDS + w] = this.numbers[filterFrom + w];
    const byPosition = <T>(old: T[] | undefined): T[] | undefined => (old ? new Array<T>(capacity) : undefined);
    const calls = byPosition(this.calls);
    const outcomes = byPosition(this.outcomes);
    const ids = byPosition(this.ids);
    const times = byPosition(this.times);
    const older = this.index ? new Array<number>(capacity).fill(-1) : undefined;
    let idEnd = 0;
    for (let s = this.first; s < this.end; s += 1) {
      const from = this.position(s);
      const to = (s % capacity) * STRIDE;
      for (let k = 0; k < STRIDE; k += 1) numbers[to + k] = this.numbers[from + k];
      const meta = numbers[to + META];
      if ((meta & META_ID) === ID_PACKED) {
        const words = ((meta >>> ID_LENGTH_SHIFT) + 3) >>> 2;
        const start = this.numbers[from + ID_AT];
        for (let w = 0; w < words; w += 1)
          numbers[base + idEnd + w] = this.numbers[this.capacity * STRIDE + ((start + w) % this.idWords)];
        numbers[to + ID_AT] = idEnd;
        idEnd += words;
      }
      const fromPosition = s % this.capacity;
      const toPosition = s % capacity;
      if (calls) calls[toPosition] = this.calls![fromPosition];
      if (outcomes) outcomes[toPosition] = this.outcomes![fromPosition];
      if (ids) ids[toPosition] = this.ids![fromPosition];
      if (times) times[toPosition] = this.times![fromPosition];
      if (older) older[s % capacity] = this.index!.older[s % this.capacity];
    }
    this.numbers = numbers;
    this.capacity = capacity;
    this.idWords = idWords;
    this.idUsed = idEnd;
    this.idEnd = idWords === 0 ? 0 : idEnd % idWords;
    this.calls = calls;
    this.outcomes = outcomes;
    this.ids = ids;
    this.times = times;
    if (older) this.index!.older = older;
  }

  /** The filter bucket of a digest-form signature (the digest is uniform: its low bits will do). */
  private filterBucket(tool: number, lo: number): number {
    return (lo ^ tool) & (FILTER_BUCKETS - 1);
  }

  /** Digest-form records in scope in the signature's filter bucket (FILTER_FULL: that many or more). */
  private filterCount(tool: number, lo: number): number {
    const bucket = this.filterBucket(tool, lo);
    const word = this.numbers.length - FILTER_WORDS + (bucket >>> 3);
    return (this.numbers[word] >>> ((bucket & 7) * 4)) & 0xf;
  }

  private filterAdd(tool: number, lo: number): void {
    const bucket = this.filterBucket(tool, lo);
    const word = this.numbers.length - FILTER_WORDS + (bucket >>> 3);
    const shift = (bucket & 7) * 4;
    if (((this.numbers[word] >>> shift) & 0xf) < FILTER_FULL) this.numbers[word] += 1 << shift;
  }

  /** Record `leaving` (digest form, in the bucket) leaves: a saturated bucket is recounted without it. */
  private filterRemove(tool: number, lo: number, leaving: number): void {
    const bucket = this.filterBucket(tool, lo);
    const word = this.numbers.length - FILTER_WORDS + (bucket >>> 3);
    const shift = (bucket & 7) * 4;
    const count = (this.numbers[word] >>> shift) & 0xf;
    if (count < FILTER_FULL) {
      this.numbers[word] -= 1 << shift;
      return;
    }
    let recount = 0;
    for (let s = this.first; s < this.end && recount < FILTER_FULL; s += 1) {
      const at = this.position(s);
      const meta = this.numbers[at + META];
      if (
        s !== leaving &&
        !(meta & META_ARGS_STRING) &&
        this.filterBucket(meta & META_TOOL, this.numbers[at + ARGS_LO]) === bucket
      )
        recount += 1;
    }
    this.numbers[word] = (this.numbers[word] & ~(0xf << shift)) | (recount << shift);
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
