/** Each ASCII character's value as a lowercase hex digit, -1 for every other character. */
const HEX_DIGIT_VALUES = Int8Array.from({ length: 128 }, (_, c) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1,
);

/**
 * The value of the 8 lowercase hex digits of `text` from `at` (0 ≤ value < 2³²), or -1 when
 * they are not 8 such digits: the inverse of one half of `hexDigitsOf`.
 */
export function hexValue(text: string, at: number): number {
  let value = 0;
  let invalid = 0;
  for (let i = at; i < at + 8; i += 1) {
    const c = text.charCodeAt(i);
    const digit = c < 128 ? HEX_DIGIT_VALUES[c] : -1;
    invalid |= digit;
    value = (value << 4) | (digit & 15);
  }
  return invalid < 0 ? -1 : value >>> 0;
}
