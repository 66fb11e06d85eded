import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hexDigitsOf } from '../../../src/engine/hashing/hex-digits.js';
import { hexValue } from '../../../src/engine/history/hex-value.js';

describe('hexValue', () => {
  it('reads back each half that hexDigitsOf wrote', () => {
    const half = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(half, half, (hi, lo) => {
        const digits = hexDigitsOf(hi, lo);
        return hexValue(digits, 0) === hi && hexValue(digits, 8) === lo;
      }),
      { numRuns: 2000 },
    );
  });

  it('is -1 unless the 8 characters are lowercase hex digits', () => {
    for (const text of ['0123456G', '0123456A', '0123456', '01234 67', '0123456\u0660', 'x0123456', ''])
      expect(hexValue(text, 0), text).toBe(-1);
    expect(hexValue('read:000000ff', 5)).toBe(0xff);
  });
});
