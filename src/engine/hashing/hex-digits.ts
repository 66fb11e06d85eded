const hexDigit = (nibble: number): number => nibble + (nibble < 10 ? 0x30 : 0x57);

/**
 * The 64-bit value `hi · 2³² + lo` (each half an unsigned 32-bit integer) as 16 lowercase hex
 * digits, zero-padded, in one flat string: what a bigint's `toString(16).padStart(16, '0')`
 * writes, at half its cost.
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
