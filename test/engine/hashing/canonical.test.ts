import { describe, expect, it } from 'vitest';
import { canonicalString, writeCanonical, type CanonicalSink } from '../../../src/engine/hashing/canonical.js';

describe('canonicalString', () => {
  it('writes objects with sorted keys and no whitespace', () => {
    expect(canonicalString({ b: [2], a: 1 })).toBe('{"a":1,"b":[2]}');
    expect(canonicalString({ B: 1, a: 2, _: 3, '10': 4, '9': 5 })).toBe('{"10":4,"9":5,"B":1,"_":3,"a":2}');
    expect(canonicalString({ 'k"ey': 'v\n' })).toBe('{"k\\"ey":"v\\n"}');
  });

  it('writes null and undefined as bare words and keeps undefined-valued keys', () => {
    expect(canonicalString(null)).toBe('null');
    expect(canonicalString(undefined)).toBe('undefined');
    expect(canonicalString({ a: undefined })).toBe('{"a":undefined}');
    expect(canonicalString({})).toBe('{}');
    expect(canonicalString([undefined, null])).toBe('[undefined,null]');
  });

  it('writes numbers, non-finite numbers, bigints and booleans', () => {
    expect(canonicalString(1.5)).toBe('1.5');
    expect(canonicalString(-0)).toBe('0');
    expect(canonicalString(1e21)).toBe('1e+21');
    expect(canonicalString(NaN)).toBe('"NaN"');
    expect(canonicalString(Infinity)).toBe('"Infinity"');
    expect(canonicalString(-Infinity)).toBe('"-Infinity"');
    expect(canonicalString(12345678901234567890n)).toBe('"12345678901234567890"');
    expect(canonicalString(-5n)).toBe('"-5"');
    expect(canonicalString([true, false])).toBe('[true,false]');
  });

  it('writes functions and symbols as null', () => {
    expect(canonicalString({ f: () => 1, s: Symbol('x') })).toBe('{"f":null,"s":null}');
    expect(canonicalString(Symbol.iterator)).toBe('null');
  });

  it('JSON-quotes strings and replaces lone surrogates with U+FFFD', () => {
    expect(canonicalString('a"b\\c\u0001')).toBe('"a\\"b\\\\c\\u0001"');
    expect(canonicalString('x\uD800y')).toBe('"x\uFFFDy"');
    expect(canonicalString('\uDC00')).toBe('"\uFFFD"');
    expect(canonicalString('😀')).toBe('"😀"');
    expect(canonicalString({ '\uD800': 1 })).toBe('{"\uFFFD":1}');
  });

  it('writes an Error as {name, message, stack}', () => {
    const error = new TypeError('boom');
    error.stack = 'STACK';
    expect(canonicalString(error)).toBe('{"message":"boom","name":"TypeError","stack":"STACK"}');
    const noStack = new Error('x');
    noStack.stack = undefined;
    expect(canonicalString(noStack)).toBe('{"message":"x","name":"Error","stack":undefined}');
  });

  it('writes a Uint8Array or Buffer as {type:"Uint8Array", data:<base64>}', () => {
    expect(canonicalString(new Uint8Array([1, 2, 3]))).toBe('{"data":"AQID","type":"Uint8Array"}');
    expect(canonicalString(Buffer.from('hi'))).toBe('{"data":"aGk=","type":"Uint8Array"}');
    const view = new Uint8Array([9, 1, 2, 9]).subarray(1, 3);
    expect(canonicalString(view)).toBe('{"data":"AQI=","type":"Uint8Array"}');
  });

  it('treats Date, Map, Set and class instances generically by own enumerable keys', () => {
    expect(canonicalString(new Date(0))).toBe('{}');
    expect(canonicalString(new Map([['a', 1]]))).toBe('{}');
    expect(canonicalString(new Set([1]))).toBe('{}');
    class Point {
      constructor(
        public y: number,
        public x: number,
      ) {}
    }
    expect(canonicalString(new Point(2, 1))).toBe('{"x":1,"y":2}');
    expect(canonicalString({ toJSON: () => 'ignored', a: 1 })).toBe('{"a":1,"toJSON":null}');
    expect(canonicalString({ [Symbol('s')]: 1, a: 2 })).toBe('{"a":2}');
  });

  it('keeps array order and writes holes as undefined', () => {
    expect(canonicalString([3, 1, 2])).toBe('[3,1,2]');
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalString([1, , 3])).toBe('[1,undefined,3]');
  });

  it('writes a cycle as "[Circular]" and serialises shared references in full', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(canonicalString(a)).toBe('{"name":"a","self":"[Circular]"}');
    const list: unknown[] = [1];
    list.push(list);
    expect(canonicalString(list)).toBe('[1,"[Circular]"]');
    const shared = { v: 1 };
    expect(canonicalString({ x: shared, y: shared, z: [shared] })).toBe('{"x":{"v":1},"y":{"v":1},"z":[{"v":1}]}');
    const error = new Error('e');
    error.stack = 's';
    (error as unknown as { message: unknown }).message = { back: error };
    expect(canonicalString(error)).toBe('{"message":{"back":"[Circular]"},"name":"Error","stack":"s"}');
  });

  it('finds cycles at any depth, shallow (scanned) or deep (kept in a set)', () => {
    for (const depth of [1, 15, 16, 17, 40]) {
      const root: Record<string, unknown> = {};
      const path = [root];
      let node = root;
      for (let i = 0; i < depth; i += 1) {
        const next: Record<string, unknown> = {};
        node.n = next;
        node = next;
        path.push(node);
      }
      node.back = root;
      // The grandparent: on the scanned part of the path when shallow, in the set when deep.
      node.up = path[Math.max(0, depth - 2)];
      node.shared = [1];
      const expected = `${'{"n":'.repeat(depth)}{"back":"[Circular]","shared":[1],"up":"[Circular]"}${'}'.repeat(depth)}`;
      expect(canonicalString(root)).toBe(expected);
    }
  });

  it('sorts the keys of each record in an array, whatever order each lists them in', () => {
    const rows = [
      { b: 1, a: 2 },
      { b: 3, a: 4 },
      { a: 5, b: 6 },
      { b: 7, c: 8 },
      { b: 9, a: 10 },
    ];
    expect(canonicalString(rows)).toBe('[{"a":2,"b":1},{"a":4,"b":3},{"a":5,"b":6},{"b":7,"c":8},{"a":10,"b":9}]');
  });

  it('handles nesting 10 000 deep without recursion', () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) value = i % 2 === 0 ? { k: value } : [value];
    const text = canonicalString(value);
    expect(text.startsWith('[{"k":[{"k":')).toBe(true);
    expect(text).toContain('"leaf"');
    expect(text.length).toBe(5000 * '[{"k":'.length + '"leaf"'.length + 5000 * '}]'.length);
  });

  it('streams punctuation through write, finite numbers through writeNumber and every string token through writeString', () => {
    const tokens: string[] = [];
    const sink: CanonicalSink = {
      write: (c) => void tokens.push(c),
      writeNumber: (n) => void tokens.push(`#${n}`),
      writeString: (t) => void tokens.push(`<${t}>`),
    };
    writeCanonical({ b: 'x', a: [1, { c: null }], n: NaN, g: 2n, f: -0.5, u: new Uint8Array([1]) }, sink);
    expect(tokens.join('')).toBe(
      '{<a>:[#1,{<c>:null}],<b>:<x>,<f>:#-0.5,<g>:<2>,<n>:<NaN>,<u>:{<data>:<AQ==>,<type>:<Uint8Array>}}',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    tokens.length = 0;
    writeCanonical(cyclic, sink);
    expect(tokens.join('')).toBe('{<self>:<[Circular]>}');
  });
  it('writes values it cannot read (throwing getters, proxy traps, revoked proxies) as "[Unreadable]"', () => {
    const getter = Object.defineProperty({ a: 1 }, 'b', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(canonicalString(getter)).toBe('{"a":1,"b":"[Unreadable]"}');
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no');
        },
      },
    );
    expect(canonicalString([trap, 2])).toBe('["[Unreadable]",2]');
    const { proxy, revoke } = Proxy.revocable([1], {});
    revoke();
    expect(canonicalString({ p: proxy })).toBe('{"p":"[Unreadable]"}');
  });
});
