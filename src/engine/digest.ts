import xxhash, { type XXHash, type XXHashAPI } from 'xxhash-wasm';
import { writeCanonical, type CanonicalSink } from './canonical.js';

/** Hashes values and texts to 16 lowercase hex characters (xxhash64, zero-padded). */
export interface Digester {
  /** xxhash64 of the canonical serialisation of `value` (see `writeCanonical`). */
  digest(value: unknown): string;
  /** xxhash64 of the UTF-8 bytes of `text` as is (no quoting, no serialisation). */
  digestText(text: string): string;
}

/** Buffered pieces are handed to the hasher once they reach this many UTF-16 units. */
const FLUSH_AT = 64 * 1024;
/** Strings at least this long skip the buffer and go straight to the hasher. */
const PASS_THROUGH_AT = 16 * 1024;
/** Huge strings are fed in slices so the wasm memory grows by at most ~3× this. */
const SLICE_AT = 1024 * 1024;

let apiPromise: Promise<XXHashAPI> | undefined;

function loadXxhash(): Promise<XXHashAPI> {
  apiPromise ??= xxhash().catch((error: unknown) => {
    apiPromise = undefined;
    throw error;
  });
  return apiPromise;
}

function toHex16(hash: bigint): string {
  return hash.toString(16).padStart(16, '0');
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
  writeCanonical(value, { write: (chunk) => void parts.push(chunk), writeString: (text) => void parts.push(stringToken(text)) });
  return parts.join('');
}

/**
 * Feeds the canonical token stream to xxhash64. Strings are written as `"<length>:<text>"`
 * (UTF-16 length, raw text) rather than JSON-escaped: the stream stays unambiguous, so two
 * values get the same digest exactly when their canonical serialisations are equal, and a
 * long string is hashed straight from its UTF-8 encoding with no escaped copy. The hasher's
 * UTF-8 encoder replaces lone surrogates with U+FFFD, as the canonical text does.
 */
class HashingSink implements CanonicalSink {
  private buffer = '';

  constructor(private readonly hasher: XXHash<bigint>) {}

  write(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  writeString(text: string): void {
    if (text.length < PASS_THROUGH_AT) {
      this.write(stringToken(text));
      return;
    }
    this.buffer += `"${text.length}:`;
    this.flush();
    updateSliced(this.hasher, text);
    this.buffer = '"';
  }

  finish(): string {
    this.flush();
    return toHex16(this.hasher.digest());
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    this.hasher.update(this.buffer);
    this.buffer = '';
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
  const api = await loadXxhash();
  const seed = options?.seed ?? 0n;
  return {
    digest(value: unknown): string {
      const sink = new HashingSink(api.create64(seed));
      writeCanonical(value, sink);
      return sink.finish();
    },
    digestText(text: string): string {
      if (text.length <= SLICE_AT) return api.h64ToString(text, seed);
      const hasher = api.create64(seed);
      updateSliced(hasher, text);
      return toHex16(hasher.digest());
    },
  };
}
