import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextMemo } from '../../../src/engine/hashing/text-memo.js';

const text = (label: string, length = 64) => `${label}:`.padEnd(length, '.');

describe('TextMemo', () => {
  it('finds a value only under the same namespace, text and context', () => {
    const memo = new TextMemo<string>({ entries: 8, chars: 10_000, fromChars: 1 });
    const args = text('args');
    memo.set('read', text('a'), args, 'A');
    // A fresh copy of the same characters is found: texts are compared, not their identity.
    expect(memo.get('read', text('a').slice(0), `${args}`)).toBe('A');
    expect(memo.get('write', text('a'), args)).toBeUndefined();
    expect(memo.get('read', text('a'), undefined)).toBeUndefined();
    expect(memo.get('read', text('a'), text('other'))).toBeUndefined();
    expect(memo.get('read', text('b'), args)).toBeUndefined();
    memo.set('read', text('a'), undefined, 'A without context');
    expect(memo.get('read', text('a'))).toBe('A without context');
    expect(memo.get('read', text('a'), args)).toBe('A');
  });

  it('tells apart texts that agree at every sampled character', () => {
    // Same length and the same characters everywhere but one position between the samples.
    const base = 'x'.repeat(1000);
    const differing = (c: string) => `${base.slice(0, 501)}${c}${base.slice(502)}`;
    const memo = new TextMemo<string>({ entries: 8, chars: 100_000, fromChars: 1 });
    memo.set('t', differing('a'), undefined, 'a');
    memo.set('t', differing('b'), undefined, 'b');
    expect(memo.get('t', differing('a'))).toBe('a');
    expect(memo.get('t', differing('b'))).toBe('b');
    expect(memo.get('t', differing('c'))).toBeUndefined();
  });

  it('neither keeps nor looks up texts shorter than fromChars, nor longer than its characters', () => {
    const memo = new TextMemo<string>({ entries: 8, chars: 100, fromChars: 10 });
    expect([memo.admits('short'), memo.admits(text('fits', 60)), memo.admits(text('long', 101))]).toEqual([
      false,
      true,
      false,
    ]);
    memo.set('t', 'short', undefined, 'short');
    expect(memo.get('t', 'short')).toBeUndefined();
    memo.set('t', text('long', 101), undefined, 'long');
    expect(memo.get('t', text('long', 101))).toBeUndefined();
    memo.set('t', text('fits', 60), text('args', 40), 'fits');
    expect(memo.get('t', text('fits', 60), text('args', 40))).toBe('fits');
  });

  it('forgets the oldest entries beyond its entries', () => {
    const memo = new TextMemo<number>({ entries: 3, chars: 10_000, fromChars: 1 });
    for (let i = 0; i < 5; i += 1) memo.set('t', text(`n${i}`), undefined, i);
    expect([0, 1, 2, 3, 4].map((i) => memo.get('t', text(`n${i}`)))).toEqual([undefined, undefined, 2, 3, 4]);
  });

  it('forgets the oldest entries beyond its characters', () => {
    const memo = new TextMemo<number>({ entries: 10, chars: 200, fromChars: 1 });
    for (let i = 0; i < 3; i += 1) memo.set('t', text(`n${i}`, 60), undefined, i);
    // 180 characters kept: a text of 100 needs two of them gone.
    memo.set('t', text('big', 100), undefined, 9);
    expect([0, 1, 2].map((i) => memo.get('t', text(`n${i}`, 60)))).toEqual([undefined, undefined, 2]);
    expect(memo.get('t', text('big', 100))).toBe(9);
  });

  it('answers as a map of the newest entries does, within its limits (property)', () => {
    const pool = [
      ...Array.from({ length: 6 }, (_, i) => text(`p${i}`, 40 + 10 * (i % 3))),
      // Near-copies: one length, one differing character each.
      ...Array.from({ length: 6 }, (_, i) => `${'y'.repeat(33)}${i}${'y'.repeat(30)}`),
    ];
    const op = fc.record({
      set: fc.boolean(),
      namespace: fc.constantFrom('a', 'b'),
      text: fc.nat(pool.length - 1),
      context: fc.constantFrom(undefined, 'c1', 'c2'),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (entries, ops) => {
        const memo = new TextMemo<number>({ entries, chars: 100_000, fromChars: 1 });
        const model: { key: string; value: number }[] = [];
        ops.forEach((o, value) => {
          const key = `${o.namespace}|${o.context ?? '-'}|${o.text}`;
          if (o.set) {
            memo.set(o.namespace, pool[o.text], o.context, value);
            model.push({ key, value });
            if (model.length > entries) model.shift();
            return;
          }
          const found = memo.get(o.namespace, pool[o.text], o.context);
          const newest = model.filter((m) => m.key === key).pop();
          // A value found is always the newest one set for that key; near-copies beyond the
          // per-key comparisons may be missed, which only costs a hash.
          if (found !== undefined) expect(found).toBe(newest?.value);
          else if (newest !== undefined) expect(model.filter((m) => m.key !== key).length).toBeGreaterThanOrEqual(4);
        });
      }),
      { numRuns: 500 },
    );
  });
});
