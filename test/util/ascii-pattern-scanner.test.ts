import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AsciiPatternScanner,
  SLICE_CHARS,
  type AsciiPatternScannerOptions,
} from '../../src/util/ascii-pattern-scanner.js';

const PATTERNS = ['\\u', '-loop', '_code', 'ged', 'xq', 'abcdefghijklmnop'];
/**
 * First characters that share their low four bits (`\\`; `a`, `q`, `A`): the scanner's filter
 * tables hold one pattern per value of those bits, so these take several tables.
 */
const SHARING = ['\\u', '\\x', 'ab', 'qb', 'Abc', 'a-z'];
/** First characters that all share their low four bits: every pattern is compared alone, no table is looked up. */
const ALONE = ['ab', 'qb', 'Abc', '1-z'];
/** Filters on other characters than the second: alone at their offset, or sharing one. */
const FILTER_AT: AsciiPatternScannerOptions = { filterAt: { ged: 2, '-loop': 4, _code: 4, abcdefghijklmnop: 15 } };
const CONFIGURATIONS: readonly (readonly [readonly string[], AsciiPatternScannerOptions])[] = [
  [PATTERNS, {}],
  [SHARING, {}],
  [PATTERNS, FILTER_AT],
  [SHARING, { filterAt: { Abc: 2, 'a-z': 2, qb: 1 } }],
  [ALONE, {}],
];

function expected(text: string, patterns: readonly string[]): number {
  return patterns.reduce((mask, pattern, j) => (text.includes(pattern) ? mask | (1 << j) : mask), 0);
}

describe('AsciiPatternScanner', () => {
  const scanner = new AsciiPatternScanner(PATTERNS);

  it('finds every pattern String#includes finds, and only those in Latin-1 texts (property)', () => {
    for (const [patterns, options] of CONFIGURATIONS) {
      const own = new AsciiPatternScanner(patterns, options);
      const piece = (latin1: boolean) =>
        fc.oneof(
          latin1
            ? fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)) })
            : fc.string(),
          latin1 ? fc.constant('ÿ') : fc.string({ unit: 'binary' }),
          fc.constantFrom(...patterns, '\\', 'u', '-lo', 'op', '_cod', 'ge', 'x', 'Qb', 'é', '\u0000', '\n'),
          latin1 ? fc.constant('ñ') : fc.constantFrom('😀', '\ud800', '\udc00', 'Ŝ', 'ĭ'),
        );
      for (const latin1 of [true, false])
        fc.assert(
          fc.property(fc.array(piece(latin1), { maxLength: 40 }), (pieces) => {
            const text = pieces.join('');
            const found = own.mayOccur(text);
            const exact = expected(text, patterns);
            expect(found & exact).toBe(exact);
            if (latin1) expect(found).toBe(exact);
          }),
          { numRuns: 4000 },
        );
    }
  });

  it('may report a pattern that a unit above U+00FF only resembles by its low byte', () => {
    expect(scanner.mayOccur('\u015cu')).toBe(1 << 0);
    expect(scanner.mayOccur('\u012dloop')).toBe(1 << 1);
  });

  it('finds a pattern at every offset of a 16-byte step, and at the very end', () => {
    for (const [patterns, options] of CONFIGURATIONS) {
      const own = new AsciiPatternScanner(patterns, options);
      for (let at = 0; at < 40; at += 1)
        for (const [j, pattern] of patterns.entries()) {
          const text = 'y'.repeat(at) + pattern;
          expect(own.mayOccur(text), `${pattern} at ${at}`).toBe(1 << j);
          expect(own.mayOccur('é'.repeat(at) + pattern) & (1 << j)).not.toBe(0);
        }
    }
  });

  it("compares every character where a pattern's filter matches, at every offset of a step", () => {
    // Each decoy has its pattern's first two characters in place and a later one wrong; with
    // FILTER_AT, the first and filtered characters.
    const decoys = ['-lZop', '-loZp', '-looZ', '_cZde', '_codZ', 'geZ', 'abZdefghijklmnop', 'abcdefghijklmnoZ'];
    const filteredDecoys = ['-Zoop', '-lZop', '_Zode', '_coZe', 'gZd', 'aZcdefghijklmnop', 'abcdefghijklmnZp'];
    const filtered = new AsciiPatternScanner(PATTERNS, FILTER_AT);
    for (let at = 0; at < 20; at += 1) {
      for (const decoy of decoys) expect(scanner.mayOccur('y'.repeat(at) + decoy), `${decoy} at ${at}`).toBe(0);
      for (const decoy of filteredDecoys)
        expect(filtered.mayOccur('y'.repeat(at) + decoy), `${decoy} at ${at}`).toBe(0);
      // A decoy in the same step as an occurrence: only the occurrence counts.
      for (const own of [scanner, filtered]) {
        expect(own.mayOccur(`${'y'.repeat(at)}-lZop ged`)).toBe(1 << 3);
        expect(own.mayOccur(`${'y'.repeat(at)}_cZde_code`)).toBe(1 << 2);
        expect(own.mayOccur(`${'y'.repeat(at)}gZd-loop`)).toBe(1 << 1);
      }
    }
  });

  it('reads the later characters of patterns only where their first two match', () => {
    // Offsets 2 and above are not read by the filter: only inside the full comparison.
    const later = new AsciiPatternScanner(['abcd', 'mnopq']);
    for (let at = 0; at < 20; at += 1) {
      const pad = 'y'.repeat(at);
      for (const decoy of ['abZd', 'abcZ', 'mnZpq', 'mnoZq', 'mnopZ']) expect(later.mayOccur(pad + decoy)).toBe(0);
      expect(later.mayOccur(`${pad}abcd`)).toBe(1);
      expect(later.mayOccur(`${pad}mnopq`)).toBe(2);
      expect(later.mayOccur(`${pad}abZd mnopq`)).toBe(2);
    }
  });

  it('tells apart patterns whose first characters share their low four bits', () => {
    const sharing = new AsciiPatternScanner(SHARING);
    for (let at = 0; at < 20; at += 1) {
      const pad = 'y'.repeat(at);
      // Each decoy's first character shares its low four bits with some pattern's, or its second
      // is another pattern's: Q, 1, !, Ü, |, l against a, q, A, \.
      for (const decoy of ['Qb', '1b', '!b', 'Üb', 'au', 'qx', 'Ax', '\\b', 'a-y', '|u', 'lu'])
        expect(sharing.mayOccur(pad + decoy), `${decoy} at ${at}`).toBe(0);
      expect(sharing.mayOccur(`${pad}\\x`)).toBe(1 << 1);
      expect(sharing.mayOccur(`${pad}qb Qb`)).toBe(1 << 3);
      expect(sharing.mayOccur(`${pad}Abc\\u`)).toBe((1 << 4) | 1);
      expect(sharing.mayOccur(`${pad}a-z ab`)).toBe((1 << 5) | (1 << 2));
    }
  });

  it('sees a pattern that straddles the boundary of two encoded slices, and none in stale bytes', () => {
    // Slices start every SLICE_CHARS - 15 units (the longest pattern is 16).
    const step = SLICE_CHARS - 15;
    for (const at of [
      step - 5,
      step - 4,
      step - 1,
      step,
      SLICE_CHARS - 5,
      SLICE_CHARS - 1,
      2 * step - 3,
      2 * step + 7,
    ]) {
      for (const fill of ['y', 'é', '😀']) {
        const head = fill.repeat(Math.ceil(at / fill.length)).slice(0, at);
        const text = `${head}-loop${'z'.repeat(100)}`;
        expect(scanner.mayOccur(text), `${fill} at ${at}`).toBe(expected(text, PATTERNS));
      }
    }
    // The longest pattern is the one an overlap one unit short would miss.
    const longest = PATTERNS[5];
    for (const at of [SLICE_CHARS - longest.length, step - 1, step, step + 1, 2 * step - 1, 2 * step]) {
      const text = `${'y'.repeat(at)}${longest}${'z'.repeat(20)}`;
      expect(scanner.mayOccur(text), `${longest} at ${at}`).toBe(1 << 5);
    }
    // A long text leaves its bytes in the memory; a short one scanned after it must not see them.
    expect(scanner.mayOccur(`${'y'.repeat(SLICE_CHARS - 10)}ged`)).toBe(1 << 3);
    expect(scanner.mayOccur('g')).toBe(0);
    expect(scanner.mayOccur('a-loop')).toBe(1 << 1);
    expect(scanner.mayOccur('a-lo')).toBe(0);
    expect(scanner.mayOccur('')).toBe(0);
  });

  it('reads ASCII patterns in texts of any characters, lone surrogates too', () => {
    expect(scanner.mayOccur('\ud800-loop\udfff')).toBe(1 << 1);
    expect(scanner.mayOccur('😀_code😀')).toBe(1 << 2);
    expect(scanner.mayOccur('\u00e9\u0067\u0065\u0064')).toBe(1 << 3);
    expect(scanner.mayOccur('\\\\u')).toBe(1 << 0);
    expect(scanner.mayOccur('ĝed -lоop')).toBe(0);
  });

  it('refuses patterns it cannot scan for, naming them', () => {
    expect(() => new AsciiPatternScanner([])).toThrow(RangeError);
    expect(() => new AsciiPatternScanner(['é'])).toThrow(/"é"/);
    expect(() => new AsciiPatternScanner(['a\u0000'])).toThrow(RangeError);
    expect(() => new AsciiPatternScanner([''])).toThrow(RangeError);
    expect(() => new AsciiPatternScanner(['ab', 'x'])).toThrow(/"x"/);
    const wrong: Record<string, number>[] = [{ abc: 1 }, { ab: 0 }, { ab: 2 }, { ab: 1.5 }, { ab: Number.NaN }];
    for (const filterAt of wrong)
      expect(() => new AsciiPatternScanner(['ab', 'cd'], { filterAt }), JSON.stringify(filterAt)).toThrow(
        /filterAt "ab[c]?"/,
      );
    // Offsets are checked as they are read: one hidden from Object.keys, or not a number, too.
    const hidden = Object.defineProperty({}, 'ab', { value: 9, enumerable: false }) as Record<string, number>;
    expect(() => new AsciiPatternScanner(['ab', 'cd'], { filterAt: hidden })).toThrow(/filterAt "ab" .* got 9/);
    const symbol = { ab: Symbol('one') } as unknown as Record<string, number>;
    expect(() => new AsciiPatternScanner(['ab', 'cd'], { filterAt: symbol })).toThrow(RangeError);
    let reads = 0;
    const getter = Object.defineProperty({}, 'abc', { enumerable: true, get: () => (reads += 1) }) as Record<
      string,
      number
    >;
    expect(new AsciiPatternScanner(['abc'], { filterAt: getter }).mayOccur('xabcx')).toBe(1);
    expect(reads).toBe(1);
    // A pattern named as an Object.prototype member is filtered on its default offset.
    expect(new AsciiPatternScanner(['constructor', 'toString'], {}).mayOccur('a toString')).toBe(2);
    expect(() => new AsciiPatternScanner(['a'.repeat(17)])).toThrow(RangeError);
    expect(() => new AsciiPatternScanner(Array.from({ length: 31 }, (_, i) => String(i)))).toThrow(RangeError);
    expect(new AsciiPatternScanner(Array.from({ length: 30 }, (_, i) => `<${i}>`)).mayOccur('a <29> b <0>')).toBe(
      (1 << 29) | 1,
    );
  });
});
