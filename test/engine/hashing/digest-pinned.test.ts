import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';

/**
 * Digests are part of a verdict's identity (an args hash or result hash names a call in
 * every loop event), so a change to how values are streamed into the hash must not change a
 * single one. These values were digested before the hashing code was last rewritten.
 */

/** Search hits, as tool results often are: many short strings and numbers, some non-ASCII. */
function searchHits(count: number): unknown {
  let state = 12345;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ['alpha', 'beta', 'gamma', 'délta', 'ε', '中文', 'omega', 'emoji 😀'];
  const word = () => words[Math.floor(next() * words.length)];
  const hits = Array.from({ length: count }, (_, n) => ({
    title: `${word()} ${word()} — result ${n}`,
    url: `https://example.com/docs/${n}/${word()}`,
    score: Math.round(next() * 10000) / 10000,
    snippet: Array.from({ length: 12 }, word).join(' '),
    rank: n + 1,
    cached: next() < 0.5,
    extra: n % 7 === 0 ? { nested: [n, null, undefined, -0, 1e21] } : null,
  }));
  return { query: 'pinned query', total: count, hits };
}

function values(): Record<string, unknown> {
  const circular: Record<string, unknown> = { name: 'loop' };
  circular.self = circular;
  const error = new Error('boom');
  error.stack = 'Error: boom\n    at fixed';
  return {
    null: null,
    undefined: undefined,
    zero: 0,
    negZero: -0,
    float: 3.25,
    big: 1e21,
    nan: NaN,
    inf: -Infinity,
    bigint: 12345678901234567890n,
    true: true,
    emptyString: '',
    ascii: 'hello world',
    quotes: 'say "hi"\n\tnow\\',
    unicode: 'café 中文 😀',
    loneSurrogate: 'a\ud800b\udc00',
    emptyObject: {},
    emptyArray: [],
    // eslint-disable-next-line no-sparse-arrays
    holes: [1, , 3],
    nested: { b: [1, 'two', { z: null, a: [true, false] }], a: { y: undefined, x: -0 }, kéy: 'v' },
    keysSorted: { b: 1, a: 2, A: 3, _: 4, '10': 5, '9': 6 },
    records: Array.from({ length: 5 }, (_, i) => ({ id: i, title: `t${i}`, score: i / 3, tags: ['x', 'y'] })),
    error,
    bytes: new Uint8Array([0, 1, 2, 250, 255]),
    circular,
    functionAndSymbol: { f: () => 1, s: Symbol('s') },
    date: new Date(0),
    map: new Map([[1, 2]]),
    shortNonAscii: 'x'.repeat(100) + 'é',
    longAsciiKey: { ['k'.repeat(200)]: 'v'.repeat(129) },
    mid: 'm'.repeat(20000),
    long: 'abé中😀'.repeat(5000),
    huge: 'hé'.repeat(700000),
    hits: searchHits(400),
    deep: Array.from({ length: 40 }).reduce<unknown>((inner, _, i) => ({ [`level${i}`]: inner, i }), 'bottom'),
  };
}

const PINNED: Record<string, string> = {
  null: '3ec9e10063179f3a',
  undefined: '6aeed7835f4984a3',
  zero: '633457081244afec',
  negZero: '633457081244afec',
  float: '50ed9f8325743279',
  big: '0f2d05e4afb8d440',
  nan: '5c8971cf380913f7',
  inf: 'd182d7a23743ba36',
  bigint: '74212095b33f84ef',
  true: 'd7c9b97948142e4a',
  emptyString: '773341c83a6eb95c',
  ascii: 'c049b80f43ca1a8d',
  quotes: 'd3fbeaeffb9eda5a',
  unicode: '5ac02935fe9273f7',
  loneSurrogate: '6b4c72bc43cf4a45',
  emptyObject: '2e1472b57af294d1',
  emptyArray: 'ccab0b28617f1f56',
  holes: 'ea639023b8732969',
  nested: 'bd887344e95f9a67',
  keysSorted: '23c4b3e1ba89f909',
  records: '5269272d0005c9d9',
  error: '7315be077ce64470',
  bytes: '7a2ac1254438dfef',
  circular: '10de100fed94c245',
  functionAndSymbol: 'e2c61921a9ac7b01',
  date: '2e1472b57af294d1',
  map: '2e1472b57af294d1',
  shortNonAscii: '9e3e1c1fe27c2fce',
  longAsciiKey: '63a7a5ab33144141',
  mid: 'd3f5c6eda02471a6',
  long: '37c5ac41e8ce8b68',
  huge: '7e275de4b146c42f',
  hits: 'fe4859bc301d6f7c',
  deep: '1973e77810da714a',
  'seed 7: nested': '72a0ea4b9ab9ea75',
  mapString: '4f3925ad8dd13b91',
  'text: ascii': '45ab6734b21e6968',
  'text: long': '84ec1ab321c72053',
  'text: huge': '8cdb73b001979f29',
};

let digester: Digester;
let seeded: Digester;

beforeAll(async () => {
  digester = await createDigester();
  seeded = await createDigester({ seed: 7n });
});

describe('digest values are pinned', () => {
  it('every representative value digests as it did', () => {
    const got: Record<string, string> = {};
    for (const [name, value] of Object.entries(values())) got[name] = digester.digest(value);
    got['seed 7: nested'] = seeded.digest(values().nested);
    got['mapString'] = digester.digest({ a: 'nonce-123', b: ['nonce-456'] }, (t) => t.replace(/nonce-\d+/g, 'nonce'));
    got['text: ascii'] = digester.digestText('hello world');
    got['text: long'] = digester.digestText('abé中😀'.repeat(5000));
    got['text: huge'] = digester.digestText('hé'.repeat(700000));
    expect(got).toEqual(PINNED);
  });
});
