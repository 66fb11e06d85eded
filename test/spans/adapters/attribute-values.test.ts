import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringValue } from '../../../src/spans/adapters/attribute-values.js';

describe('stringValue', () => {
  it('is the trimmed string, undefined when blank or not a string (property)', () => {
    const padding = fc.constantFrom('', ' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', '\u3000');
    const texts = fc
      .tuple(padding, fc.oneof(fc.string(), fc.constantFrom('write', 'call_1', 'é', '~', '!')), padding)
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(texts, (text) => {
        expect(stringValue(text)).toBe(text.trim() === '' ? undefined : text.trim());
      }),
      { numRuns: 3000 },
    );
  });

  it('trims ASCII and Unicode padding, and reads no other type', () => {
    const name = 'read_file';
    expect(stringValue(name)).toBe(name);
    expect(stringValue(' a ')).toBe('a');
    expect(stringValue('\u00a0a')).toBe('a');
    for (const value of [undefined, null, 3, true, ['a'], { a: 1 }]) expect(stringValue(value)).toBeUndefined();
  });
});
