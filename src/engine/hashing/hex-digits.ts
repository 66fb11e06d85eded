// Without a branch: `(9 - nibble) >> 31` is -1 for a nibble of 10 or more, 0 below, and it
// selects the 39 that takes `0x30 + nibble` on to `a`. A hash's nibbles are random, so a test
// per digit would be mispredicted about every other time.
const hexDigit = (nibble: number): number => nibble + 0x30 + (((9 - nibble) >> 31) & 39);

/**
 * The 64-bit value `hi · 2³² + lo` (each half an unsigned 32-bit integer) as 16 lowercase hex
 * digits, zero-padded, in one flat string: what a bigint's `toString(16).padStart(16, '0')`
 * writes, without the bigint's conversion.
 */
export function hexDigitsOf(hi: number, lo: number): string {
  return String.fromCharCode(
    hexDigit(hi >>> 28),
    hexDigit((hi >>> 24) & 15),
    hexDigit((hi >>> 20) & 15),
    hexDigit((hi >>> 16) & 15),
    hexDigit((hi >>> 12) & 15),
    hexDigit((hi >>> 8) & 15),
    hexDigit((hi >>> 4) & 15),
    hexDigit(hi & 15),
    hexDigit(lo >>> 28),
    hexDigit((lo >>> 24) & 15),
    hexDigit((lo >>> 20) & 15),
    hexDigit((lo >>> 16) & 15),
    hexDigit((lo >>> 12) & 15),
    hexDigit((lo >>> 8) & 15),
    hexDigit((lo >>> 4) & 15),
    hexDigit(lo & 15),
  );
}
