/*
 * A near-duplicate sketch of a result text in one number (a 52-bit integer). The text is cut into word
 * tokens (runs of letters, digits and `_`; each other visible character is a token of its own)
 * with every run of digits read as one token "#", so counters, times and ids made of digits do
 * not count as new content. Shingles of three consecutive tokens are min-hashed into 52 bins
 * (one-permutation hashing; an empty bin borrows from the next full one), and each bin keeps one
 * bit of its minimum. Two texts with shingle-set Jaccard similarity J agree on each bit with
 * probability (1 + J) / 2, so the number of differing bits estimates J.
 */

/** Bits (and min-hash bins) of a sketch: as many as a double holds exactly. */
export const SKETCH_BITS = 52;
/** A sketch is kept as two 26-bit halves: `high × 2^26 + low`. */
const HALF = 26;
const HALF_SCALE = 2 ** HALF;
/** Longer texts get no sketch: the sketch is a per-call cost, and such outputs are compared exactly. */
export const SKETCH_MAX_CHARS = 16 * 1024;

const DIGITS = 0x2f3a91c5;
/** Above every stored minimum (bins are compared as signed 32-bit integers). */
const UNSET = 0x7fffffff;

/** murmur3's 32-bit finaliser, kept signed so that every value stays a small integer. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f ||
    code >= 0x80
  );
}

/** The bin of a shingle hash, 0..51, by multiply-shift (no division). */
function binOf(h: number): number {
  return ((h >>> 16) * SKETCH_BITS) >>> 16;
}

/** What a result text is compared by: its sketch, and its shape. */
export interface TextEvidence {
  /** The near-duplicate sketch (an integer, 0 ≤ sketch < 2^52). */
  readonly sketch: number;
  /**
   * A 31-bit digest of the token sequence: equal for texts that differ only in their numbers
   * and their whitespace (`date +%S` read twice, the same error at another line).
   */
  readonly shape: number;
}

/** The sketch of `text` (see {@link textEvidence}). */
export function sketchText(text: string): number | undefined {
  return textEvidence(text)?.sketch;
}

/**
 * The sketch and shape of `text`, or `undefined` for a text with no token or longer than
 * {@link SKETCH_MAX_CHARS}. Equal texts always have equal evidence. One pass over the text, a
 * few integer operations per character.
 */
export function textEvidence(text: string): TextEvidence | undefined {
  const length = text.length;
  if (length === 0 || length > SKETCH_MAX_CHARS) return undefined;
  let shape = 0x2c1b3c6d;
  const mins = new Int32Array(SKETCH_BITS).fill(UNSET);
  let filled = 0;
  let t1 = 0;
  let t2 = 0;
  let tokens = 0;
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) {
      i += 1;
      continue;
    }
    let token: number;
    if (isWordChar(code)) {
      let h = 0x811c9dc5 | 0;
      let digitsOnly = true;
      do {
        if (code < 0x30 || code > 0x39) digitsOnly = false;
        h = Math.imul(h ^ code, 0x01000193);
        i += 1;
        code = i < length ? text.charCodeAt(i) : 0x20;
      } while (isWordChar(code));
      token = digitsOnly ? DIGITS : h;
    } else {
      token = mix(code + 0x1000193);
      i += 1;
    }
    tokens += 1;
    shape = Math.imul(shape ^ token, 0x01000193);
    if (tokens >= 3) {
      const h = mix(Math.imul(t1, 0x9e3779b1) ^ Math.imul(t2, 0x85ebca77) ^ token);
      const bin = binOf(h);
      const value = mix(h ^ 0x5bd1e995);
      if (value < mins[bin]) {
        if (mins[bin] === UNSET) filled += 1;
        mins[bin] = value;
      }
    }
    t1 = t2;
    t2 = token;
  }
  if (tokens === 0) return undefined;
  if (tokens < 3) {
    // One shingle of the whole text: the tokens shift in as if the text were padded in front.
    const h = mix(Math.imul(t1, 0x9e3779b1) ^ Math.imul(t2, 0x85ebca77) ^ tokens);
    mins[binOf(h)] = mix(h ^ 0x5bd1e995);
    filled = 1;
  }
  // A minimum equal to UNSET reads as an empty bin: it then borrows like one, consistently.
  if (filled === 0) return undefined;
  let low = 0;
  let high = 0;
  for (let bin = 0; bin < SKETCH_BITS; bin += 1) {
    let value = mins[bin];
    if (value === UNSET) {
      // An empty bin borrows the next full one's minimum, mixed with the distance to it.
      let from = bin + 1 === SKETCH_BITS ? 0 : bin + 1;
      let distance = 1;
      while (mins[from] === UNSET) {
        from = from + 1 === SKETCH_BITS ? 0 : from + 1;
        distance += 1;
      }
      value = mix(mins[from] ^ Math.imul(distance, 0x27d4eb2f));
    }
    const bit = (value >>> 7) & 1;
    if (bin < HALF) low |= bit << bin;
    else high |= bit << (bin - HALF);
  }
  return { sketch: high * HALF_SCALE + low, shape: mix(shape) >>> 1 };
}

function popcount(x: number): number {
  let bits = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) bits += 1;
  return bits;
}

/** Bits in which two sketches differ. */
export function sketchDistance(a: number, b: number): number {
  const low = (a % HALF_SCALE) ^ (b % HALF_SCALE);
  const high = Math.floor(a / HALF_SCALE) ^ Math.floor(b / HALF_SCALE);
  return popcount(low) + popcount(high);
}

/**
 * Whether two sketches estimate a shingle similarity of at least `percent` %: at most
 * `floor(52 × (1 − percent/100) / 2)` differing bits (90 % allows 2, 95 % 1, 97 % and above none).
 */
export function sketchesSimilar(a: number, b: number, percent: number): boolean {
  return sketchDistance(a, b) <= Math.floor((SKETCH_BITS * (100 - percent)) / 200);
}
