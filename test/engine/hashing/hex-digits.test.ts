import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hexDigitsOf } from '../../../src/engine/hashing/hex-digits.js';

const reference = (hi: number, lo: number): string => ((BigInt(hi) << 32n) | BigInt(lo)).toString(16).padStart(16, '0');

describe('hexDigitsOf', () => {
  it('writes 16 zero-padded lowercase hex digits, high half first', () => {
    expect(hexDigitsOf(0, 0)).toBe('0000000000000000');
    expect(hexDigitsOf(0, 1)).toBe('0000000000000001');
    expect(hexDigitsOf(1, 0)).toBe('0000000100000000');
    expect(hexDigitsOf(0xffffffff, 0xffffffff)).toBe('ffffffffffffffff');
    expect(hexDigitsOf(0x0123abcd, 0x89ef4567)).toBe('0123abcd89ef4567');
  });

  it('agrees with a bigint toString(16) padded to 16 for any two 32-bit halves', () => {
    const half = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(half, half, (hi, lo) => hexDigitsOf(hi, lo) === reference(hi, lo)),
      { numRuns: 2000 },
    );
  });
});
