import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonAttribute } from '../../src/spans/json-attribute.js';

/** What a content attribute means, by definition: its JSON value when it is JSON text, else the text. */
function reference(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Texts led by every kind of whitespace, JSON or not, before JSON values and prose. */
const leadingSpace = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\ufeff', '\u2028', '\u3000'), {
  maxLength: 3,
});
const body = fc.oneof(
  fc.json(),
  fc.string(),
  fc.constantFrom('true', 'nul', 'ok: 5 lines read', '-', '-1e3', '"x"', '{"a":1', 'NaN', ''),
);

describe('parseJsonAttribute', () => {
  it('is the JSON value of JSON text, and the text itself otherwise', () => {
    fc.assert(
      fc.property(leadingSpace, body, (space, text) => {
        const value = space.join('') + text;
        expect(parseJsonAttribute(value)).toEqual(reference(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('passes non-string values through', () => {
    const parsed = { a: [1] };
    expect(parseJsonAttribute(parsed)).toBe(parsed);
    expect(parseJsonAttribute(42)).toBe(42);
    expect(parseJsonAttribute(undefined)).toBeUndefined();
  });

  it('keeps prose and blank text as they are', () => {
    expect(parseJsonAttribute('  file written')).toBe('  file written');
    expect(parseJsonAttribute(' \n ')).toBe(' \n ');
    expect(parseJsonAttribute('\u00a0{"a":1}')).toBe('\u00a0{"a":1}');
    expect(parseJsonAttribute('\n [1, 2]')).toEqual([1, 2]);
  });
});
