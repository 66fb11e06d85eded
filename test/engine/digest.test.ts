import fc from 'fast-check';
import xxhash from 'xxhash-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../src/engine/canonical.js';
import { createDigester, type Digester } from '../../src/engine/digest.js';

const HEX16 = /^[0-9a-f]{16}$/;
let digester: Digester;
let h64ToString: (input: string, seed?: bigint) => string;

beforeAll(async () => {
  digester = await createDigester();
  ({ h64ToString } = await xxhash());
});

/** Raw UTF-16 code units, lone surrogates included. */
const utf16 = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }).map((codes) => String.fromCharCode(...codes));

describe('createDigester', () => {
  it('returns 16 lowercase hex characters, zero-padded', () => {
    for (const value of [null, undefined, 0, 'a', {}, [], { a: 1 }]) expect(digester.digest(value)).toMatch(HEX16);
    expect(digester.digestText('')).toBe('ef46db3751d8e999');
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
    expect(seeded.digest('v')).toBe(h64ToString('"v"', 42n));
    expect(seeded.digestText('v')).toBe(h64ToString('v', 42n));
  });

  it('digest(value) equals h64 of canonicalString(value) and digestText hashes the text as is', () => {
    expect(digester.digest('abc')).toBe(h64ToString('"abc"'));
    expect(digester.digestText('abc')).toBe(h64ToString('abc'));
    expect(digester.digest({ b: [2], a: 1 })).toBe(h64ToString('{"a":1,"b":[2]}'));
  });

  it('streamed digests equal hashing the canonical string, for arbitrary values', () => {
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
      fc.property(value, (v) => digester.digest(v) === h64ToString(canonicalString(v))),
      { numRuns: 500 },
    );
  });

  it('streamed digests of long strings (escapes, surrogates, slice boundaries) equal the canonical hash', () => {
    const specials = fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\uD83D\uDE00', '\uD800', '\uDC00', 'é', '漢');
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
      fc.property(longString, (s) => digester.digest({ s }) === h64ToString(canonicalString({ s }))),
      { numRuns: 60 },
    );
    const straddle = `${'a'.repeat(65_535)}\uD83D\uDE00${'b'.repeat(10)}`;
    expect(digester.digest(straddle)).toBe(h64ToString(canonicalString(straddle)));
    const loneAtEdge = `${'a'.repeat(65_535)}\uD800${'b'.repeat(10)}`;
    expect(digester.digest(loneAtEdge)).toBe(h64ToString(canonicalString(loneAtEdge)));
    expect(digester.digest(loneAtEdge)).toBe(digester.digest(`${'a'.repeat(65_535)}\uFFFD${'b'.repeat(10)}`));
  });

  it('hashes a 10 MB string and a 10 MB nested object', () => {
    const big = 'abcdefghij'.repeat(1_000_000);
    expect(digester.digest(big)).toBe(h64ToString(`"${big}"`));
    expect(digester.digest(big)).not.toBe(digester.digest(`${big}!`));
    const escaped = 'line "one"\n'.repeat(1_000_000);
    expect(digester.digest(escaped)).toBe(h64ToString(JSON.stringify(escaped)));
    expect(digester.digestText(big)).toBe(h64ToString(big));

    const nested: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) nested[`key${i}`] = { id: i, label: `v${i}`, tags: ['a', 'b'], ok: i % 2 === 0 };
    const text = canonicalString(nested);
    expect(text.length).toBeGreaterThan(10_000_000);
    expect(digester.digest(nested)).toBe(h64ToString(text));
  });

  it('hashes a 1 MB Uint8Array through its base64 form', () => {
    const bytes = new Uint8Array(1 << 20).map((_, i) => i * 31);
    expect(digester.digest(bytes)).toBe(h64ToString(canonicalString(bytes)));
  });

  it('hashes values nested 10 000 deep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { child: deep };
    expect(digester.digest(deep)).toMatch(HEX16);
    expect(digester.digest(deep)).toBe(h64ToString(canonicalString(deep)));
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
