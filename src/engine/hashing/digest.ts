import { Buffer } from 'node:buffer';
import xxhash, { type XXHash, type XXHashAPI } from 'xxhash-wasm';
import { CanonicalWalkState, writeCanonical, type CanonicalSink } from './canonical.js';
import { hexDigitsOf } from './hex-digits.js';

/** Hashes values and texts to 16 lowercase hex characters (xxhash64, zero-padded). */
export interface Digester {
  /**
   * xxhash64 of the canonical serialisation of `value` (see `writeCanonical`). `mapString`,
   * when given, rewrites every string token before it is hashed (outcome digests canonicalise
   * volatile nonces this way).
   */
  digest(value: unknown, mapString?: (text: string) => string): string;
  /** xxhash64 of the UTF-8 bytes of `text` as is (no quoting, no serialisation). */
  digestText(text: string): string;
}

/** Huge strings are fed in slices so the wasm memory grows by at most ~3× this. */
const SLICE_AT = 1024 * 1024;

/** Which 32-bit half of a `BigUint64Array` word holds the low bits, on this platform's byte order. */
const LOW_HALF = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/**
 * Writes 64-bit hashes as 16 lowercase hex digits, zero-padded, as `toString(16).padStart(16, '0')`
 * does, from the hash's two 32-bit halves (see {@link hexDigitsOf}).
 */
class HexWriter {
  private readonly word = new BigUint64Array(1);
  private readonly halves = new Uint32Array(this.word.buffer);

  hex16(hash: bigint): string {
    this.word[0] = hash;
    return hexDigitsOf(this.halves[1 - LOW_HALF], this.halves[LOW_HALF]);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Calls `each` with consecutive slices of at most `size` units, never splitting a surrogate pair. */
function forEachSlice(text: string, size: number, each: (slice: string) => void): void {
  if (text.length <= size) {
    each(text);
    return;
  }
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    // Each half of a split pair would encode as U+FFFD.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    each(text.slice(start, end));
    start = end;
  }
}

function updateSliced(hasher: XXHash<bigint>, chunk: string): void {
  forEachSlice(chunk, SLICE_AT, (slice) => hasher.update(slice));
}

/** A string as the digest's input stream writes it. */
const stringToken = (text: string): string => `"${text.length}:${text}"`;

/**
 * The exact text {@link Digester.digest} hashes for `value`, built in one piece — for tests
 * and benchmarks that compare the streamed digest with hashing the same bytes directly.
 */
export function digestInput(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, {
    write: (chunk) => void parts.push(chunk),
    writeNumber: (value) => void parts.push(String(value)),
    writeString: (text) => void parts.push(stringToken(text)),
  });
  return parts.join('');
}

/** Bytes a hashing sink gathers before handing them to the hasher. */
const BUFFER_BYTES = 64 * 1024;
/** Streams shorter than this many bytes are hashed through a view of the buffer made once per length. */
const PREFIX_VIEWS = 1024;
/** Strings longer than this (UTF-16 units) go to the hasher directly instead of through the buffer. */
const PASS_THROUGH_AT = 16 * 1024;
/** Strings up to this many units are encoded unit by unit (see {@link encodeUtf8From}); longer ones by `Buffer.write`. */
const SHORT_STRING = 64;
const QUOTE = 0x22;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const MINUS = 0x2d;
const POINT = 0x2e;
/** The longest `String()` of a finite number (`-1.2345678901234567e-123`), with room to spare. */
const NUMBER_ROOM = 32;
/** 10^k for the fraction digits {@link writeShortNumber} tries. */
const POWERS_OF_TEN: readonly number[] = [1, 10, 100, 1000, 10000, 100000, 1000000];
/** Decimals with an integer part below this are written directly (10^9 · 10^6 stays far below 2^52). */
const SHORT_DECIMAL_BELOW = 1e9;
const INT32_MAX = 0x7fffffff;

/** Writes the digits of `value` (an integer from 0 to 2^53 − 1) at `at`; returns the end. */
function writeInteger(bytes: Uint8Array, at: number, value: number): number {
  if (value <= INT32_MAX) return writeSmallInteger(bytes, at, value);
  let end = at + 1;
  for (let bound = 10; bound <= value; bound *= 10) end += 1;
  let rest = value;
  for (let j = end - 1; j >= at; j -= 1) {
    const digit = rest % 10;
    bytes[j] = DIGIT_0 + digit;
    rest = (rest - digit) / 10;
  }
  return end;
}

/**
 * Writes the digits of `value` (an integer from 0 to 2^31 − 1) at `at`; returns the end. In
 * 32-bit integer arithmetic (`| 0`), which the compiler turns into multiplications: a
 * floating-point `%` here cost more than the rest of a short string's token.
 */
function writeSmallInteger(bytes: Uint8Array, at: number, value: number): number {
  // Most are string lengths of keys and short values, and small counts: one or two digits
  // written directly spare the general loop (its digit count and divisions).
  if (value < 10) {
    bytes[at] = DIGIT_0 + value;
    return at + 1;
  }
  if (value < 100) {
    const tens = (value / 10) | 0;
    bytes[at] = DIGIT_0 + tens;
    bytes[at + 1] = DIGIT_0 + value - tens * 10;
    return at + 2;
  }
  let end = at + 1;
  for (let bound = 10; bound <= value; bound *= 10) end += 1;
  let rest = value | 0;
  for (let j = end - 1; j >= at; j -= 1) {
    const next = (rest / 10) | 0;
    bytes[j] = DIGIT_0 + rest - next * 10;
    rest = next;
  }
  return end;
}

/**
 * Writes finite `value` as `String(value)` would, for integers of magnitude below 2^53 and
 * decimals with up to 6 fraction digits below 10^9 (what tool results hold: counts, ids,
 * scores, prices); returns the end, or -1 for any other number (the caller writes
 * `String(value)`). The fewest fraction digits whose decimal reads back as `value` are the
 * digits `String` writes: in that range that decimal is unique, and `Math.round` finds it.
 */
function writeShortNumber(bytes: Uint8Array, at: number, value: number): number {
  let magnitude = value;
  if (value < 0) {
    magnitude = -value;
    bytes[at++] = MINUS;
  }
  if (Number.isInteger(magnitude))
    return magnitude <= Number.MAX_SAFE_INTEGER ? writeInteger(bytes, at, magnitude) : -1;
  if (magnitude >= SHORT_DECIMAL_BELOW) return -1;
  for (let k = 1; k < POWERS_OF_TEN.length; k += 1) {
    const power = POWERS_OF_TEN[k];
    const scaled = Math.round(magnitude * power);
    if (scaled / power !== magnitude) continue;
    const whole = Math.floor(magnitude);
    at = writeInteger(bytes, at, whole);
    bytes[at++] = POINT;
    let fraction = (scaled - whole * power) | 0;
    for (let j = at + k - 1; j >= at; j -= 1) {
      const next = (fraction / 10) | 0;
      bytes[j] = DIGIT_0 + fraction - next * 10;
      fraction = next;
    }
    return at + k;
  }
  return -1;
}

/**
 * Writes the UTF-8 encoding of `text` from unit `from` on at `at`, as `TextEncoder` would (a
 * lone surrogate becomes U+FFFD); returns the end. The caller has made room for 3 bytes per
 * unit, and has written the ASCII units before `from` itself (see `HashingSink.writeString`).
 */
function encodeUtf8From(text: string, from: number, bytes: Uint8Array, at: number): number {
  const units = text.length;
  for (let i = from; i < units; i += 1) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      bytes[at++] = code;
      continue;
    }
    if (code < 0x800) {
      bytes[at++] = 0xc0 | (code >> 6);
      bytes[at++] = 0x80 | (code & 0x3f);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = code <= 0xdbff && i + 1 < units ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i += 1;
        bytes[at++] = 0xf0 | (code >> 18);
        bytes[at++] = 0x80 | ((code >> 12) & 0x3f);
        bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
        bytes[at++] = 0x80 | (code & 0x3f);
        continue;
      }
      code = 0xfffd;
    }
    bytes[at++] = 0xe0 | (code >> 12);
    bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
    bytes[at++] = 0x80 | (code & 0x3f);
  }
  return at;
}

/**
 * Feeds the canonical token stream to xxhash64. Strings are written as `"<length>:<text>"`
 * (UTF-16 length, raw text) rather than JSON-escaped: the stream stays unambiguous, so two
 * values get the same digest exactly when their canonical serialisations are equal, and a
 * long string is hashed straight from its UTF-8 encoding with no escaped copy. UTF-8 encoding
 * replaces lone surrogates with U+FFFD, as the canonical text does.
 *
 * Tokens are encoded straight into a byte buffer; a value whose stream fits in it (almost
 * every tool call) is hashed in one call, without a streaming hasher or intermediate strings.
 */
class HashingSink implements CanonicalSink {
  private length = 0;
  /** `bytes.length`, read once: reading a Buffer's length in every token cost about 1 % of the hash's instructions. */
  private readonly capacity: number;
  private hasher: XXHash<bigint> | undefined = undefined;
  private mapString: ((text: string) => string) | undefined = undefined;
  /** This sink's walks are one at a time (see `createDigester`), so they share one walk state. */
  private readonly walk = new CanonicalWalkState();
  /**
   * `bytes.subarray(0, n)` at index `n`, for the short lengths seen so far: making a view per
   * digest cost more than hashing a short stream does. Filled up front, so that the array stays
   * a plain list however few lengths are seen.
   */
  private readonly prefixes: (Buffer | undefined)[] = new Array<Buffer | undefined>(PREFIX_VIEWS).fill(undefined);

  constructor(
    private readonly api: XXHashAPI,
    private readonly seed: bigint,
    private readonly bytes: Buffer,
    private readonly hex: HexWriter,
  ) {
    this.capacity = bytes.length;
  }

  /** The digest of `value`'s token stream; the sink is ready for the next one afterwards. */
  digest(value: unknown, mapString: ((text: string) => string) | undefined): string {
    this.length = 0;
    this.hasher = undefined;
    this.mapString = mapString;
    writeCanonical(value, this, this.walk);
    return this.finish();
  }

  /** `chunk` is punctuation, a number or a bare word: ASCII, one byte per unit. */
  write(chunk: string): void {
    if (this.length + chunk.length > this.capacity) this.flush();
    const { bytes } = this;
    let at = this.length;
    for (let i = 0; i < chunk.length; i += 1) bytes[at++] = chunk.charCodeAt(i);
    this.length = at;
  }

  writeNumber(value: number): void {
    if (this.length + NUMBER_ROOM > this.capacity) this.flush();
    const end = writeShortNumber(this.bytes, this.length, value);
    if (end >= 0) this.length = end;
    else this.write(String(value));
  }

  writeString(token: string): void {
    const text = this.mapString ? this.mapString(token) : token;
    const units = text.length;
    if (units > PASS_THROUGH_AT) {
      this.write(`"${units}:`);
      this.flush();
      updateSliced(this.streaming(), text);
      this.write('"');
      return;
    }
    // Room for the worst case: quote, up to 5 length digits, colon, 3 bytes per UTF-16 unit, quote.
    if (this.length + 8 + units * 3 > this.capacity) this.flush();
    const { bytes } = this;
    let at = this.length;
    bytes[at++] = QUOTE;
    at = writeSmallInteger(bytes, at, units);
    bytes[at++] = COLON;
    // Tool content is mostly short strings (keys, ids, paths, titles, numbers as text): encoding
    // them here is cheaper than a call into Node, whose native loop wins on longer ones (96 units
    // or more measured slower on 1 MB structured results). Up to 64 rather than 24: the loop
    // counts more instructions than the call for a 35-character path, but in time the 100 B tool
    // span and 1 MB structured results took less (see docs/performance.md).
    if (units <= SHORT_STRING) {
      // The ASCII prefix here, in the caller, where the compiler inlines it (measured 2 % fewer
      // instructions than in a function of its own).
      let i = 0;
      for (; i < units; i += 1) {
        const code = text.charCodeAt(i);
        if (code >= 0x80) break;
        bytes[at + i] = code;
      }
      at = i === units ? at + units : encodeUtf8From(text, i, bytes, at + i);
    } else at += bytes.write(text, at);
    bytes[at++] = QUOTE;
    this.length = at;
  }

  private finish(): string {
    const filled = this.length < PREFIX_VIEWS ? this.prefix(this.length) : this.bytes.subarray(0, this.length);
    if (this.hasher === undefined) return this.hex.hex16(this.api.h64Raw(filled, this.seed));
    this.hasher.update(filled);
    return this.hex.hex16(this.hasher.digest());
  }

  private prefix(length: number): Buffer {
    const known = this.prefixes[length];
    if (known !== undefined) return known;
    const made = this.bytes.subarray(0, length);
    this.prefixes[length] = made;
    return made;
  }

  private streaming(): XXHash<bigint> {
    this.hasher ??= this.api.create64(this.seed);
    return this.hasher;
  }

  private flush(): void {
    if (this.length === 0) return;
    this.streaming().update(this.bytes.subarray(0, this.length));
    this.length = 0;
  }
}

/**
 * Creates a {@link Digester}. The xxhash-wasm module is instantiated once per process
 * and shared by every digester; digesters themselves are cheap and synchronous.
 *
 * `digest(value)` streams the canonical serialisation into an xxhash64 hasher through a
 * 64 KiB buffer, so the whole text is never materialised. Strings enter the hash
 * length-prefixed instead of JSON-escaped (see `HashingSink`): equal canonical texts give
 * equal digests and different ones different digests (up to 64-bit collisions), but the
 * digest is not `h64(canonicalString(value))`.
 *
 * @param options.seed - xxhash64 seed (default `0n`).
 */
export async function createDigester(options?: { seed?: bigint }): Promise<Digester> {
  // Each digester instantiates its own wasm module: no state is shared between processors.
  const api = await xxhash();
  const seed = options?.seed ?? 0n;
  // One sink and buffer per digester, reused by each digest; a digest that starts while another
  // is under way (a getter of the value being hashed that hashes) gets its own.
  const hex = new HexWriter();
  const shared = new HashingSink(api, seed, Buffer.allocUnsafeSlow(BUFFER_BYTES), hex);
  let busy = false;
  return {
    digest(value: unknown, mapString?: (text: string) => string): string {
      if (busy) return new HashingSink(api, seed, Buffer.allocUnsafeSlow(BUFFER_BYTES), hex).digest(value, mapString);
      busy = true;
      try {
        return shared.digest(value, mapString);
      } finally {
        busy = false;
      }
    },
    digestText(text: string): string {
      if (text.length <= SLICE_AT) return hex.hex16(api.h64(text, seed));
      const hasher = api.create64(seed);
      updateSliced(hasher, text);
      return hex.hex16(hasher.digest());
    },
  };
}
