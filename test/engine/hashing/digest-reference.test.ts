/**
 * The streamed digest against a reference built without the streaming walker or the byte
 * sink: a plain recursive serialiser of the documented hash stream (sorted keys, strings as
 * `"<UTF-16 length>:<text>"`, numbers as `String` writes them), hashed in one piece.
 */
import fc from 'fast-check';
import xxhash from 'xxhash-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';
import { canonicalizeUntrustedContentIds } from '../../../src/engine/hashing/untrusted-content.js';

let digester: Digester;
let h64ToString: (input: string) => string;

beforeAll(async () => {
  digester = await createDigester();
  const api = await xxhash();
  h64ToString = (input) => api.h64ToString(input);
});

/** The hash stream of a JSON-like value (no cycles, Errors or bytes), one recursive call per node. */
function referenceStream(value: unknown, mapString: (text: string) => string = (text) => text): string {
  const string = (text: string) => {
    const mapped = mapString(text);
    return `"${mapped.length}:${mapped}"`;
  };
  const walk = (v: unknown): string => {
    if (v === null) return 'null';
    if (v === undefined) return 'undefined';
    if (typeof v === 'string') return string(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : string(String(v));
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    const record = v as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${string(key)}:${walk(record[key])}`)
      .join(',')}}`;
  };
  return walk(value);
}

/** Raw UTF-16 code units, lone surrogates included. */
const utf16 = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 90 })
  .map((codes) => String.fromCharCode(...codes));

/** Strings of every size the sink treats apart: short, around the native-write threshold, long. */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  utf16,
  fc
    .tuple(fc.nat({ max: 400 }), fc.constantFrom('a', 'é', '漢', '\uD83D\uDE00', '\uD800', '"', ':'))
    .map(([n, unit]) => 'x'.repeat(n) + unit + 'y'.repeat(n % 7)),
);

/** Numbers a tool result holds (counts, scores, prices) and every edge `String` has. */
const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc
    .tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 8 }))
    .map(([n, digits]) => n / 10 ** digits),
  fc.constantFrom(
    0,
    -0,
    1e21,
    -1e21,
    1e-7,
    1e-6,
    999999999.999999,
    1e9,
    2 ** 31,
    2 ** 31 - 1,
    2 ** 53,
    2 ** 53 - 1,
    Number.MIN_VALUE,
    Number.MAX_VALUE,
    Number.EPSILON,
    0.1 + 0.2,
    NaN,
    Infinity,
    -Infinity,
  ),
);

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 12 },
    text,
    number,
    fc.boolean(),
    fc.constantFrom(null, undefined),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(text, tie('value'), { maxKeys: 8 }),
  ),
})).value;

describe('digest against a reference serialiser', () => {
  it('equals hashing the reference stream for random JSON-like values', () => {
    fc.assert(
      fc.property(json, (v) => digester.digest(v) === h64ToString(referenceStream(v))),
      { numRuns: 2000 },
    );
  });

  it('equals the reference with every string rewritten (the untrusted-content mapping)', () => {
    const marker = (id: string, body: string) =>
      `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>${body}<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`;
    const wrapped = fc
      .tuple(fc.stringMatching(/^[a-f0-9]{16}$/), fc.string({ maxLength: 20 }), fc.string({ maxLength: 5 }))
      .map(([id, body, before]) => before + marker(id, body));
    const value = fc.dictionary(fc.oneof(text, wrapped), fc.oneof(json, wrapped), { maxKeys: 6 });
    fc.assert(
      fc.property(
        value,
        (v) =>
          digester.digest(v, canonicalizeUntrustedContentIds) ===
          h64ToString(referenceStream(v, canonicalizeUntrustedContentIds)),
      ),
      { numRuns: 500 },
    );
  });

  it('writes every finite number as String() writes it', () => {
    fc.assert(
      fc.property(number, (n) => digester.digest([n, -n]) === h64ToString(referenceStream([n, -n]))),
      { numRuns: 20_000 },
    );
  });

  it('equals the reference for deep nesting and records with many keys', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 2_000; i++) deep = i % 2 === 0 ? { [`k${i % 5}`]: deep, n: i / 8 } : [deep, i];
    expect(digester.digest(deep)).toBe(h64ToString(referenceStream(deep)));
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) wide[`key ${(i * 7919) % 5_000} é`] = i % 3 === 0 ? i * 0.25 : `v${i}`;
    const rows = Array.from({ length: 300 }, (_, i) => ({
      z: i,
      a: `r${i}`,
      m: i % 2 === 0,
      ...(i % 3 ? {} : { q: null }),
    }));
    for (const v of [wide, rows]) expect(digester.digest(v)).toBe(h64ToString(referenceStream(v)));
  });
});
