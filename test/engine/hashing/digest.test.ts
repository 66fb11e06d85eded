import fc from 'fast-check';
import xxhash from 'xxhash-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalString, writeCanonical } from '../../../src/engine/hashing/canonical.js';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';

const HEX16 = /^[0-9a-f]{16}$/;
let digester: Digester;
let h64ToString: (input: string, seed?: bigint) => string;

beforeAll(async () => {
  digester = await createDigester();
  const api = await xxhash();
  h64ToString = (input, seed) => api.h64ToString(input, seed);
});

/**
 * The digest's documented byte stream, built in one piece: the canonical token stream with
 * every string written as `"<UTF-16 length>:<text>"` instead of JSON-escaped.
 */
function hashStream(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, {
    write: (chunk) => void parts.push(chunk),
    writeNumber: (value) => void parts.push(String(value)),
    writeString: (text) => void parts.push(`"${text.length}:${text}"`),
  });
  return parts.join('');
}
const canonicalHash = (value: unknown, seed?: bigint) => h64ToString(hashStream(value), seed);

/** Raw UTF-16 code units, lone surrogates included. */
const utf16 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

describe('createDigester', () => {
  it('returns 16 lowercase hex characters, zero-padded', () => {
    for (const value of [null, undefined, 0, 'a', {}, [], { a: 1 }]) expect(digester.digest(value)).toMatch(HEX16);
    expect(digester.digestText('')).toBe('ef46db3751d8e999');
  });

  it('writes hashes with leading zero digits and high bits as the library does (zero-padded hex)', () => {
    const found = { zero: 0, highBit: 0 };
    for (let i = 0; found.zero < 3 || found.highBit < 3; i += 1) {
      const value = `v${i}`;
      const reference = h64ToString(`"${value.length}:${value}"`);
      if (reference.startsWith('00')) found.zero += 1;
      else if (reference.startsWith('f')) found.highBit += 1;
      else continue;
      expect(digester.digest(value)).toBe(reference);
      expect(digester.digestText(value)).toBe(h64ToString(value));
    }
  });

  it('digestText hashes the UTF-8 bytes of short and long texts, lone surrogates as U+FFFD (property)', () => {
    const texts = fc.oneof(
      utf16,
      fc.string({ unit: 'grapheme', minLength: 50, maxLength: 80 }),
      fc.string({ minLength: 60, maxLength: 70 }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(digester.digestText(text)).toBe(h64ToString(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('is stable across calls and digesters, and key order does not matter', async () => {
    const other = await createDigester();
    const value = { b: [1, 2, { z: 'q', y: null }], a: 'x' };
    expect(digester.digest(value)).toBe(digester.digest(value));
    expect(other.digest(value)).toBe(digester.digest(value));
    expect(digester.digest({ a: 'x', b: [1, 2, { y: null, z: 'q' }] })).toBe(digester.digest(value));
    expect(digester.digest({ a: 1 })).not.toBe(digester.digest({ a: 2 }));
    expect(digester.digest({ a: undefined })).not.toBe(digester.digest({}));
  });

  it('defaults the seed to 0n and honours a custom seed', async () => {
    const seeded = await createDigester({ seed: 42n });
    const zero = await createDigester({ seed: 0n });
    expect(zero.digest('v')).toBe(digester.digest('v'));
    expect(seeded.digest('v')).not.toBe(digester.digest('v'));
    expect(seeded.digest('v')).toBe(h64ToString('"1:v"', 42n));
    expect(seeded.digestText('v')).toBe(h64ToString('v', 42n));
  });

  it('digest(value) hashes the canonical token stream with length-prefixed strings; digestText hashes the text as is', () => {
    expect(digester.digest('abc')).toBe(h64ToString('"3:abc"'));
    expect(digester.digest('say "hi"\n')).toBe(h64ToString('"9:say "hi"\n"'));
    expect(digester.digestText('abc')).toBe(h64ToString('abc'));
    expect(digester.digest({ b: [2], a: 1 })).toBe(h64ToString('{"1:a":1,"1:b":[2]}'));
    expect(digester.digest(NaN)).toBe(digester.digest('NaN'));
    expect(digester.digest(10n)).toBe(digester.digest('10'));
  });

  it('two values have equal digests exactly when their canonical serialisations are equal', () => {
    const small = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(
          null,
          undefined,
          0,
          1,
          NaN,
          Infinity,
          true,
          '',
          'a',
          'NaN',
          '1',
          '"',
          ':',
          '1:a',
          '[Circular]',
          'a"b',
          '\uD800',
          '\uFFFD',
        ),
        fc.bigInt({ min: 0n, max: 3n }),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', '1', '"', 'a:'), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(
        small,
        small,
        (a, b) => (digester.digest(a) === digester.digest(b)) === (canonicalString(a) === canonicalString(b)),
      ),
      { numRuns: 3000 },
    );
  });

  it('streamed digests equal hashing the documented stream in one piece, for arbitrary values', () => {
    const value = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
      values: [fc.string(), utf16, fc.double(), fc.bigInt(), fc.constant(undefined)],
    });
    fc.assert(
      fc.property(value, (v) => digester.digest(v) === canonicalHash(v)),
      { numRuns: 500 },
    );
  });

  it('strings on both sides of the length encoded in place (64 units) digest as the one-piece hash', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.constantFrom(0xe9, 0x6f22, 0xd83d, 0xde00, 0xd800, 0xdc00, 0xfffd),
    );
    const text = fc.array(unit, { minLength: 56, maxLength: 72 }).map((codes) => String.fromCharCode(...codes));
    fc.assert(
      fc.property(text, (s) => digester.digest({ s }) === canonicalHash({ s })),
      { numRuns: 2000 },
    );
  });

  it('streamed digests of long strings (escapes, surrogates, slice boundaries) equal the one-piece hash', () => {
    const specials = fc.constantFrom(
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\uD83D\uDE00',
      '\uD800',
      '\uDC00',
      'é',
      '漢',
    );
    const longString = fc
      .tuple(
        fc.integer({ min: 4_000, max: 140_000 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), specials), { maxLength: 6 }),
        fc.constantFrom('a', 'xyz', 'ü', '漢字'),
      )
      .map(([length, inserts, fill]) => {
        let text = fill.repeat(Math.ceil(length / fill.length)).slice(0, length);
        for (const [at, s] of inserts) {
          const i = Math.floor(at * text.length);
          text = text.slice(0, i) + s + text.slice(i);
        }
        return text;
      });
    fc.assert(
      fc.property(longString, (s) => digester.digest({ s }) === canonicalHash({ s })),
      { numRuns: 60 },
    );
    const straddle = `${'a'.repeat(1_048_575)}\uD83D\uDE00${'b'.repeat(10)}`;
    expect(digester.digest(straddle)).toBe(canonicalHash(straddle));
    const loneAtEdge = `${'a'.repeat(1_048_575)}\uD800${'b'.repeat(10)}`;
    expect(digester.digest(loneAtEdge)).toBe(canonicalHash(loneAtEdge));
    expect(digester.digest(loneAtEdge)).toBe(digester.digest(`${'a'.repeat(1_048_575)}\uFFFD${'b'.repeat(10)}`));
  });

  it('token streams that cross the 64 KiB byte buffer many times hash like the one-piece stream', () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'Z', '"', ':', '\n'),
      fc.constantFrom('é', '漢', '\uD83D\uDE00', '\uD800', '\uDC00'),
    );
    // Strings of every size class: short ASCII, short with non-ASCII anywhere, medium, and over 16 K units.
    const text = fc
      .tuple(fc.array(unit, { maxLength: 12 }), fc.nat({ max: 20_000 }), fc.nat({ max: 1 }))
      .map(([units, pad, side]) => {
        const filler = 'x'.repeat(pad % 3 === 0 ? pad : pad % 200);
        return side === 0 ? filler + units.join('') : units.join('') + filler;
      });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.integer()), { minLength: 1, maxLength: 40 }), (rows) => {
        const value = rows.map(([t, n]) => ({ t, n, k: { [t.slice(0, 8)]: n } }));
        return digester.digest(value) === canonicalHash(value);
      }),
      { numRuns: 150 },
    );
  });

  it('a digest taken while another is under way (a getter that hashes) leaves both right', () => {
    const inner = { path: '/x', lines: [1, 2, 3] };
    let innerDigest = '';
    const outer = {
      a: 'before',
      get b() {
        innerDigest = digester.digest(inner);
        return 'x'.repeat(300);
      },
      c: 'after',
    };
    expect(digester.digest(outer)).toBe(canonicalHash({ a: 'before', b: 'x'.repeat(300), c: 'after' }));
    expect(innerDigest).toBe(canonicalHash(inner));
  });

  it("a digest taken inside another digest's mapString, and one inside a getter of a mapped value, leave both right", () => {
    const upper = (text: string) => text.toUpperCase();
    const inner = { path: '/x', n: 1 };
    const fromGetter: string[] = [];
    const outer = {
      a: 'before',
      get b() {
        fromGetter.push(digester.digest(inner));
        return 'mixed Case';
      },
    };
    const fromMapString: string[] = [];
    const hashing = (text: string) => {
      fromMapString.push(digester.digest({ text }));
      return upper(text);
    };
    expect(digester.digest(outer, upper)).toBe(canonicalHash({ A: 'BEFORE', B: 'MIXED CASE' }));
    expect(digester.digest(outer, hashing)).toBe(canonicalHash({ A: 'BEFORE', B: 'MIXED CASE' }));
    expect(fromGetter).toEqual([canonicalHash(inner), canonicalHash(inner)]);
    expect(fromMapString).toEqual(['a', 'before', 'b', 'mixed Case'].map((text) => canonicalHash({ text })));
  });

  it('each digest uses only its own mapString, also after one that threw', () => {
    const value = { key: 'Value', list: ['a', 'B'] };
    const upper = (text: string) => text.toUpperCase();
    expect(digester.digest(value, upper)).toBe(canonicalHash({ KEY: 'VALUE', LIST: ['A', 'B'] }));
    expect(digester.digest(value)).toBe(canonicalHash(value));
    const failing = () => {
      throw new Error('mapString failed');
    };
    expect(() => digester.digest({ long: 'x'.repeat(70_000), more: 'y' }, failing)).toThrow('mapString failed');
    expect(digester.digest(value)).toBe(canonicalHash(value));
    expect(digester.digest('x'.repeat(100_000))).toBe(canonicalHash('x'.repeat(100_000)));
    expect(digester.digest(value)).toBe(canonicalHash(value));
  });

  it('streams of every short length, in any order, hash like the one-piece stream', () => {
    const lengths = Array.from({ length: 1100 }, (_, n) => n);
    for (const n of [...lengths, ...lengths.reverse(), 5, 1030, 5, 0]) {
      const text = 'é'.repeat(n % 3) + 'a'.repeat(n);
      expect(digester.digest(text)).toBe(canonicalHash(text));
    }
  });

  it('hashes a 10 MB string and a 10 MB nested object', () => {
    const big = 'abcdefghij'.repeat(1_000_000);
    expect(digester.digest(big)).toBe(h64ToString(`"${big.length}:${big}"`));
    expect(digester.digest(big)).not.toBe(digester.digest(`${big}!`));
    const escaped = 'line "one"\n'.repeat(1_000_000);
    expect(digester.digest(escaped)).toBe(canonicalHash(escaped));
    expect(digester.digestText(big)).toBe(h64ToString(big));

    const nested: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) nested[`key${i}`] = { id: i, label: `v${i}`, tags: ['a', 'b'], ok: i % 2 === 0 };
    expect(canonicalString(nested).length).toBeGreaterThan(10_000_000);
    expect(digester.digest(nested)).toBe(canonicalHash(nested));
  });

  it('hashes a 1 MB Uint8Array through its base64 form', () => {
    const bytes = new Uint8Array(1 << 20).map((_, i) => i * 31);
    expect(digester.digest(bytes)).toBe(canonicalHash(bytes));
    expect(digester.digest(bytes)).toBe(
      digester.digest({ type: 'Uint8Array', data: Buffer.from(bytes).toString('base64') }),
    );
  });

  it('hashes values nested 10 000 deep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { child: deep };
    expect(digester.digest(deep)).toMatch(HEX16);
    expect(digester.digest(deep)).toBe(canonicalHash(deep));
  });

  it('equal circular structures hash equally', () => {
    const make = (): Record<string, unknown> => {
      const root: Record<string, unknown> = { name: 'root', list: [] as unknown[] };
      (root.list as unknown[]).push(root, { back: root });
      return root;
    };
    expect(digester.digest(make())).toBe(digester.digest(make()));
  });
});
