import { Buffer } from 'node:buffer';

/**
 * Receives the canonical serialisation as a token stream: punctuation and literals through
 * `write`, every string (values, keys, and the strings the rules produce such as `"NaN"` or
 * `"[Circular]"`) through `writeString`. A text sink JSON-quotes strings; a hashing sink may
 * encode them any way that keeps equal token streams equal and different ones different.
 */
export interface CanonicalSink {
  write(chunk: string): void;
  /** A finite number, written as `String(value)` writes it (`-0` as `0`). */
  writeNumber(value: number): void;
  /** One string token, not yet quoted (lone surrogates not yet replaced). */
  writeString(text: string): void;
}

/** ES2024 string methods, in every Node this package supports (>= 20); not yet in our TS lib. */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

const ERROR_KEYS: readonly string[] = ['message', 'name', 'stack'];
const BYTES_KEYS: readonly string[] = ['data', 'type'];
const CIRCULAR = '[Circular]';
/** Written for a value whose keys or property cannot be read (a throwing getter or proxy trap). */
const UNREADABLE = '[Unreadable]';

/**
 * Replaces lone UTF-16 surrogates with U+FFFD; returns `text` itself when it is
 * well-formed.
 */
export function sanitizeSurrogates(text: string): string {
  const s = text as unknown as WellFormedString;
  return s.isWellFormed() ? text : s.toWellFormed();
}

const NO_KEYS: readonly string[] = Object.freeze([]);
/** Key lists a {@link KeySorter} remembers: a small tool call's digests walk about this many object shapes. */
const REMEMBERED_KEY_LISTS = 4;

/**
 * Sorts objects' keys, remembering the last few key lists: the objects of an array of records
 * (search hits, rows) share one, so it is sorted once instead of once per record; and a sorter
 * kept between digests (see {@link CanonicalWalkState}) sorts the key lists of calls of one
 * tool (arguments, result details) once, not at every call.
 */
class KeySorter {
  /** Filled up front (with the empty list, which is its own sorted form) so the loop reads a packed list. */
  private readonly lastKeys: (readonly string[])[] = new Array<readonly string[]>(REMEMBERED_KEY_LISTS).fill(NO_KEYS);
  private readonly lastSorted: (readonly string[])[] = new Array<readonly string[]>(REMEMBERED_KEY_LISTS).fill(NO_KEYS);
  /** The slot the next new key list replaces, in turn. */
  private nextSlot = 0;

  sorted(node: object): readonly string[] {
    const keys = Object.keys(node);
    const remembered = this.lastKeys;
    for (let slot = 0; slot < REMEMBERED_KEY_LISTS; slot += 1) {
      const last = remembered[slot];
      if (keys.length !== last.length) continue;
      let same = true;
      for (let i = 0; i < keys.length && same; i += 1) same = keys[i] === last[i];
      if (same) return this.lastSorted[slot];
    }
    const sorted = keys.length <= 16 ? insertionSorted(keys) : [...keys].sort();
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % REMEMBERED_KEY_LISTS;
    remembered[slot] = keys;
    this.lastSorted[slot] = sorted;
    return sorted;
  }
}

function insertionSorted(keys: readonly string[]): string[] {
  const out = keys.slice();
  for (let i = 1; i < out.length; i += 1) {
    const key = out[i];
    let j = i - 1;
    while (j >= 0 && out[j] > key) {
      out[j + 1] = out[j];
      j -= 1;
    }
    out[j + 1] = key;
  }
  return out;
}

/** Fills a popped slot, so that the stack keeps no reference to a walked value. */
const EMPTY: object = Object.freeze({});

/** Ancestors up to this depth are found by scanning the stack; deeper ones are also kept in a set. */
const SCANNED_DEPTH = 16;

/**
 * The objects being walked, innermost last, as parallel arrays (reused for every object, so
 * that a walk over thousands of records allocates no frame per record).
 */
class WalkStack {
  depth = 0;
  /** The object on the ancestor path (for cycle detection). */
  readonly nodes: object[] = [EMPTY, EMPTY, EMPTY, EMPTY];
  /** `undefined` for arrays; the sorted keys for objects. */
  readonly keys: (readonly string[] | undefined)[] = [undefined, undefined, undefined, undefined];
  /** Where values are read from (the array, the object, or the projection of an Error or bytes). */
  readonly sources: object[] = [EMPTY, EMPTY, EMPTY, EMPTY];
  readonly lengths: number[] = [0, 0, 0, 0];
  readonly next: number[] = [0, 0, 0, 0];
  /** Deep ancestors only (created at the first): a shallow path is scanned, cheaper than a set for every object. */
  private deep: Set<object> | undefined = undefined;

  has(node: object): boolean {
    const scanned = Math.min(this.depth, SCANNED_DEPTH);
    for (let d = 0; d < scanned; d += 1) if (this.nodes[d] === node) return true;
    return this.depth > SCANNED_DEPTH && this.deep !== undefined && this.deep.has(node);
  }

  /** Pushes how `node` is walked: its keys (none for arrays) and where its values are read from. May throw. */
  push(node: object, sorter: KeySorter): boolean {
    let keys: readonly string[] | undefined;
    let source: object;
    let length: number;
    if (node instanceof Uint8Array) {
      keys = BYTES_KEYS;
      source = {
        data: Buffer.from(node.buffer, node.byteOffset, node.byteLength).toString('base64'),
        type: 'Uint8Array',
      };
      length = BYTES_KEYS.length;
    } else if (Array.isArray(node)) {
      keys = undefined;
      source = node;
      length = node.length;
    } else if (node instanceof Error) {
      keys = ERROR_KEYS;
      source = { message: node.message, name: node.name, stack: node.stack };
      length = ERROR_KEYS.length;
    } else {
      keys = sorter.sorted(node);
      source = node;
      length = keys.length;
    }
    const d = this.depth++;
    this.nodes[d] = node;
    this.keys[d] = keys;
    this.sources[d] = source;
    this.lengths[d] = length;
    this.next[d] = 0;
    if (d >= SCANNED_DEPTH) (this.deep ??= new Set()).add(node);
    return keys === undefined;
  }

  pop(): void {
    const d = --this.depth;
    if (d >= SCANNED_DEPTH) this.deep?.delete(this.nodes[d]);
    this.nodes[d] = this.sources[d] = EMPTY;
    this.keys[d] = undefined;
  }
}

/**
 * The walk stack and key sorter of {@link writeCanonical}, kept between walks by a caller that
 * walks many small values one after another (a digester): making them afresh would cost a small
 * object's digest more than its walk, and the sorter's remembered key lists then also spare
 * sorting the keys of a shape seen in a recent walk again. One walk at a time: a walk that
 * starts while another is under way needs a state of its own.
 */
export class CanonicalWalkState {
  private readonly stack = new WalkStack();
  /** @internal */
  readonly sorter = new KeySorter();

  /** @internal The stack, emptied (a walk that threw part way may have left frames on it). */
  stackForWalk(): WalkStack {
    while (this.stack.depth > 0) this.stack.pop();
    return this.stack;
  }
}

/**
 * Streams the stable (key-sorted) serialisation that hashes are taken of into `sink`, without building the whole
 * text in memory and without recursion (depth is limited only by heap).
 *
 * Rules:
 * - `null` → `null`, `undefined` → `undefined` (bare words; `undefined`-valued keys are
 *   kept, so `{a: undefined}` ≠ `{}`); functions and symbols → `null`.
 * - Finite numbers and booleans as in JSON (`-0` → `0`); `NaN`, `Infinity`, `-Infinity`
 *   → the JSON string of their text; a bigint → the JSON string of its decimal form.
 * - Strings (values and keys) are JSON-quoted after lone UTF-16 surrogates are replaced
 *   with U+FFFD (the replacement UTF-8 encoding would make anyway; `JSON.stringify` alone
 *   would emit `\udXXX` escapes instead).
 * - An `Error` → the object `{name, message, stack}` (all three keys always present).
 * - A `Uint8Array` (including `Buffer`) → `{"data":<base64>,"type":"Uint8Array"}`.
 * - Arrays keep order (holes are `undefined`; extra non-index properties are ignored).
 * - Every other object — including `Date`, `Map`, `Set`, boxed primitives, class
 *   instances and other typed arrays — is treated generically: its own enumerable
 *   string keys (`Object.keys`), sorted in default code-unit order, each JSON-quoted.
 *   `toJSON` is not consulted, so a `Date`, `Map` or `Set` becomes `{}` (as in
 *   OpenClaw's stable-stringify). Symbol keys are ignored.
 * - No whitespace. An object already on the current ancestor path is written as
 *   `"[Circular]"`; an object shared by siblings is serialised in full each time.
 *
 * - A value whose keys or property cannot be read (a getter or proxy trap that throws) is
 *   written as the string `"[Unreadable]"`: hashing never throws on hostile input.
 *
 * `state`, when given, is reused instead of a fresh walk stack and key sorter (see
 * {@link CanonicalWalkState}); the output is the same.
 */
export function writeCanonical(value: unknown, sink: CanonicalSink, state?: CanonicalWalkState): void {
  const stack = state === undefined ? new WalkStack() : state.stackForWalk();
  const sorter = state === undefined ? new KeySorter() : state.sorter;
  openValue(value, sink, stack, sorter);
  while (stack.depth > 0) {
    const d = stack.depth - 1;
    const keys = stack.keys[d];
    const source = stack.sources[d];
    const length = stack.lengths[d];
    let i = stack.next[d];
    let pushed = false;
    // The members of the innermost object or array, in one loop: its frame is read once, not
    // per member. A member that is an object or array is pushed and walked first; the loop
    // resumes after it.
    while (i < length && !pushed) {
      if (i > 0) sink.write(',');
      if (keys !== undefined) {
        sink.writeString(keys[i]);
        sink.write(':');
      }
      let property: unknown;
      try {
        property =
          keys === undefined
            ? (source as readonly unknown[])[i]
            : (source as Readonly<Record<string, unknown>>)[keys[i]];
      } catch {
        sink.writeString(UNREADABLE);
        i += 1;
        continue;
      }
      i += 1;
      pushed = openValue(property, sink, stack, sorter);
    }
    if (pushed) {
      stack.next[d] = i;
    } else {
      sink.write(keys === undefined ? ']' : '}');
      stack.pop();
    }
  }
}

/**
 * Writes a primitive whole, or the opening of an object and pushes it on the walk stack;
 * returns whether it pushed.
 */
function openValue(v: unknown, sink: CanonicalSink, stack: WalkStack, sorter: KeySorter): boolean {
  // Each `typeof v === '…'` compiles to a type check; a `switch (typeof v)` computes the type's
  // name in a builtin call per value, then compares strings.
  if (typeof v === 'string') {
    sink.writeString(v);
    return false;
  }
  if (typeof v === 'number') {
    if (Number.isFinite(v)) sink.writeNumber(v);
    else sink.writeString(String(v));
    return false;
  }
  if (typeof v === 'boolean') {
    sink.write(v ? 'true' : 'false');
    return false;
  }
  if (typeof v === 'bigint') {
    sink.writeString(v.toString());
    return false;
  }
  if (typeof v === 'undefined') {
    sink.write('undefined');
    return false;
  }
  if (typeof v === 'function' || typeof v === 'symbol') {
    sink.write('null');
    return false;
  }
  if (v === null) {
    sink.write('null');
    return false;
  }
  const node = v;
  if (stack.has(node)) {
    sink.writeString(CIRCULAR);
    return false;
  }
  let isArray: boolean;
  try {
    isArray = stack.push(node, sorter);
  } catch {
    // A throwing getter or proxy trap (even Array.isArray throws on a revoked proxy).
    sink.writeString(UNREADABLE);
    return false;
  }
  sink.write(isArray ? '[' : '{');
  return true;
}

/**
 * Returns the whole canonical serialisation of `value` as one string (see
 * {@link writeCanonical} for the rules). Meant for tests and debugging; hashing should
 * stream through a sink instead.
 */
export function canonicalString(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, {
    write: (chunk) => void parts.push(chunk),
    writeNumber: (value) => void parts.push(String(value)),
    writeString: (text) => void parts.push(JSON.stringify(sanitizeSurrogates(text))),
  });
  return parts.join('');
}
