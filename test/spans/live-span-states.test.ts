/** `LiveSpanStates`: a map by span object, its newest entries in an array, older ones weakly held. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveSpanStates } from '../../src/spans/live-span-states.js';

describe('LiveSpanStates', () => {
  it('answers as a Map would for any sequence of sets, reads and deletes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(19), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(19) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat(19) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const spans = Array.from({ length: 20 }, (_, i) => ({ span: i }));
        const states = new LiveSpanStates<number>();
        const expected = new Map<object, number>();
        for (const o of ops) {
          const span = spans[o.key];
          if (o.kind === 'set') {
            states.set(span, o.value);
            expected.set(span, o.value);
          } else if (o.kind === 'get') {
            expect(states.get(span)).toBe(expected.get(span));
          } else {
            expect(states.delete(span)).toBe(expected.delete(span));
          }
          expect(states.size).toBeGreaterThanOrEqual(expected.size);
          if (expected.size === 0) expect(states.size).toBe(0);
        }
        for (const span of spans) expect(states.get(span)).toBe(expected.get(span));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every state when more spans are live than its array holds, whatever order they end in', () => {
    const states = new LiveSpanStates<string>();
    const spans = Array.from({ length: 30 }, (_, i) => ({ span: i }));
    spans.forEach((span, i) => states.set(span, `state ${i}`));
    for (const i of [0, 29, 7, 8, 22, 15]) expect(states.get(spans[i])).toBe(`state ${i}`);
    const order = [3, 29, 0, 28, 14, 1, ...spans.keys()].filter((i, at, all) => all.indexOf(i) === at);
    for (const i of order) {
      expect(states.delete(spans[i])).toBe(true);
      expect(states.get(spans[i])).toBeUndefined();
      expect(states.delete(spans[i])).toBe(false);
    }
    expect(states.size).toBe(0);
  });

  it('lets go of a span that never ends once enough newer spans started, not before', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    // A WeakRef keeps its target until the job that made or read it is over.
    const gc = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      collect();
    };
    const states = new LiveSpanStates<{ payload: number[] }>();
    const startedAndForgotten = () => {
      const span = { never: 'ends' };
      states.set(span, { payload: [1, 2, 3] });
      return new WeakRef(span);
    };
    const abandoned = startedAndForgotten();
    const newer = Array.from({ length: 3 }, (_, i) => ({ span: i }));
    for (const span of newer) states.set(span, { payload: [] });
    await gc();
    // Still among the newest: held by the array, as a live span is.
    expect(abandoned.deref()).toBeDefined();
    const later = Array.from({ length: 8 }, (_, i) => ({ span: 10 + i }));
    for (const span of later) states.set(span, { payload: [] });
    await gc();
    expect(abandoned.deref()).toBeUndefined();
    for (const span of [...newer, ...later]) expect(states.get(span)).toEqual({ payload: [] });
  });
});
