/*
 * A near-duplicate sketch of a result text in one small integer. The text is cut into word
 * tokens (runs of letters, digits and `_`; each other visible character is a token of its own)
 * with every run of digits read as one token "#", so counters, times and ids made of digits do
 * not count as new content. Shingles of three consecutive tokens are min-hashed into 31 bins
 * (one-permutation hashing; an empty bin borrows from the next full one), and each bin keeps one
 * bit of its minimum. Two texts with shingle-set Jaccard similarity J agree on each bit with
 * probability (1 + J) / 2, so the number of differing bits estimates J.
 */

/** Bits (and min-hash bins) of a sketch: the most a small integer holds on every engine. */
export const SKETCH_BITS = 31;
/** Longer texts get no sketch: the sketch is a per-call cost, and such outputs are compared exactly. */
export const SKETCH_MAX_CHARS = 64 * 1024;

const DIGITS = 0x2f3a91c5;
const EMPTY = 0xffffffff;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
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

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/**
 * The sketch of `text` (0 ≤ sketch < 2^31), or `undefined` for a text with no token or longer
 * than {@link SKETCH_MAX_CHARS}. Equal texts always have equal sketches.
 */
export function sketchText(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > SKETCH_MAX_CHARS) return undefined;
  const mins = new Uint32Array(SKETCH_BITS).fill(EMPTY);
  let t1 = 0;
  let t2 = 0;
  let tokens = 0;
  const shingle = (t3: number) => {
    tokens += 1;
    if (tokens < 3) return;
    const h = fmix32(Math.imul(t1, 0x9e3779b1) ^ Math.imul(t2, 0x85ebca77) ^ t3);
    const bin = h % SKETCH_BITS;
    const value = fmix32(h ^ 0x5bd1e995);
    if (value < mins[bin]) mins[bin] = value;
  };
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      i += 1;
      continue;
    }
    let token: number;
    if (isWordChar(code)) {
      let h = 0x811c9dc5;
      let digitsOnly = true;
      while (i < length) {
        const c = text.charCodeAt(i);
        if (!isWordChar(c)) break;
        if (c < 0x30 || c > 0x39) digitsOnly = false;
        h = Math.imul(h ^ c, 0x01000193);
        i += 1;
      }
      token = digitsOnly ? DIGITS : h >>> 0;
    } else {
      token = fmix32(code + 0x1000193);
      i += 1;
    }
    shingle(token);
    t1 = t2;
    t2 = token;
  }
  if (tokens === 0) return undefined;
  if (tokens < 3) {
    // One shingle of the whole text: the tokens shift in as if the text were padded in front.
    const h = fmix32(Math.imul(t1, 0x9e3779b1) ^ Math.imul(t2, 0x85ebca77) ^ tokens);
    mins[h % SKETCH_BITS] = fmix32(h ^ 0x5bd1e995);
  }
  let sketch = 0;
  for (let bin = 0; bin < SKETCH_BITS; bin += 1) {
    let value = mins[bin];
    if (value === EMPTY) {
      let from = (bin + 1) % SKETCH_BITS;
      let distance = 1;
      while (mins[from] === EMPTY) {
        from = (from + 1) % SKETCH_BITS;
        distance += 1;
      }
      value = fmix32(mins[from] ^ Math.imul(distance, 0x27d4eb2f));
    }
    sketch |= ((value >>> 7) & 1) << bin;
  }
  return sketch;
}

/** Bits in which two sketches differ. */
export function sketchDistance(a: number, b: number): number {
  let x = (a ^ b) >>> 0;
  let bits = 0;
  while (x !== 0) {
    x &= x - 1;
    bits += 1;
  }
  return bits;
}

/**
 * Whether two sketches estimate a shingle similarity of at least `percent` %: at most
 * `floor(31 × (1 − percent/100) / 2)` differing bits (90 % allows 1, 95 % and above allow none).
 */
export function sketchesSimilar(a: number, b: number, percent: number): boolean {
  return sketchDistance(a, b) <= Math.floor((SKETCH_BITS * (100 - percent)) / 200);
}
