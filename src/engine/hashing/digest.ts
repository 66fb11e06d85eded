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
/** Strings up to this many units are written unit by unit while they are ASCII (see `HashingSink.writeString`). */
const SHORT_STRING = 64;

/**
 * Feeds the canonical token stream to xxhash64. Strings are written as `"<length>:<text>"`
 * (UTF-16 length, raw text) rather than JSON-escaped: the stream stays unambiguous, so two
 * values get the same digest exactly when their canonical serialisations are equal, and a
 * long string is hashed straight from its UTF-8 encoding with no escaped copy. UTF-8 encoding
 * replaces lone surrogates with U+FFFD, as the canonical text does.
 *
 * Tokens are encoded straight into a byte buffer; a value whose stream fits in it (almost
 * every tool call) is hashed in one call, without a streaming hasher or intermediate strings.
 * This runs on every tool call, so it is written for speed where the ~100 B tool span's bound
 * (docs/performance.md) needs it: short ASCII strings copied unit by unit, the buffer's views
 * made once per length, and the hash's hex digits written from its halves ({@link HexWriter}).
 */
class HashingSink implements CanonicalSink {
  private length = 0;
  private readonly capacity: number;
  private hasher: XXHash<bigint> | undefined = undefined;
  private mapString: ((text: string) => string) | undefined = undefined;
  /** This sink's walks are one at a time (see `createDigester`), so they share one walk state. */
  private readonly walk = new CanonicalWalkState();
  /**
   * `bytes.subarray(0, n)` at index `n`, for the short lengths seen so far: making a view costs
   * more than hashing a short stream does.
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
    this.write(String(value));
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
    this.write('"');
    this.write(String(units));
    this.write(':');
    // Most strings in tool calls are short and ASCII (keys, ids, paths): their units are their
    // bytes, and copying them here costs less than a call into Node's encoder.
    const { bytes } = this;
    const at = this.length;
    let i = 0;
    if (units <= SHORT_STRING)
      for (; i < units; i += 1) {
        const code = text.charCodeAt(i);
        if (code >= 0x80) break;
        bytes[at + i] = code;
      }
    this.length = i === units ? at + units : at + i + bytes.write(i === 0 ? text : text.slice(i), at + i);
    this.write('"');
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
