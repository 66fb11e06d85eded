/** `RunRegistry`: live run states released by root end, idle TTL (lazily) and the live-run cap. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunRegistry, type RunReleaseReason } from '../../src/spans/run-registry.js';

function registry(limits: { idleTtlMs: number; maxLiveRuns: number }) {
  let now = 0;
  const released: Array<[string, RunReleaseReason]> = [];
  const runs = new RunRegistry<{ key: string }>(
    limits,
    () => now,
    (key, _state, reason) => released.push([key, reason]),
  );
  return { runs, released, advance: (ms: number) => (now += ms) };
}

describe('RunRegistry', () => {
  it('creates a run state once and returns the same one on later touches', () => {
    const { runs } = registry({ idleTtlMs: 1000, maxLiveRuns: 10 });
    let created = 0;
    const make = () => ({ key: `made-${++created}` });
    const first = runs.touch('a', make);
    expect(runs.touch('a', make)).toBe(first);
    expect(created).toBe(1);
    expect(runs.peek('a')).toBe(first);
    expect(runs.peek('b')).toBeUndefined();
    expect(runs.size).toBe(1);
  });

  it('evicts the least recently active run beyond maxLiveRuns (a touch makes a run recent again)', () => {
    const { runs, released } = registry({ idleTtlMs: 1_000_000, maxLiveRuns: 2 });
    runs.touch('a', () => ({ key: 'a' }));
    runs.touch('b', () => ({ key: 'b' }));
    runs.touch('a', () => ({ key: 'a' }));
    runs.touch('c', () => ({ key: 'c' }));
    expect(released).toEqual([['b', 'capacity']]);
    expect([runs.peek('a'), runs.peek('b'), runs.peek('c')].map(Boolean)).toEqual([true, false, true]);
  });

  it('releases runs idle for idleTtlMs on the next activity, and sweeps at most every idleTtlMs / 4', () => {
    const { runs, released, advance } = registry({ idleTtlMs: 100, maxLiveRuns: 10 });
    runs.touch('old', () => ({ key: 'old' }));
    advance(60);
    runs.touch('recent', () => ({ key: 'recent' }));
    advance(50); // old idle 110 ms, recent 50 ms
    expect(released).toEqual([]); // nothing happens without activity
    runs.touch('other', () => ({ key: 'other' }));
    expect(released).toEqual([['old', 'idle']]);
    advance(20); // within idleTtlMs / 4 of the last sweep: no sweep yet even though recent is 70 ms idle
    runs.touch('other', () => ({ key: 'other' }));
    advance(40);
    runs.touch('other', () => ({ key: 'other' }));
    expect(released).toEqual([
      ['old', 'idle'],
      ['recent', 'idle'],
    ]);
  });

  it('a run opened by two root spans is released when the last of them closes', () => {
    const { runs, released } = registry({ idleTtlMs: 1000, maxLiveRuns: 10 });
    runs.openRoot('r');
    runs.openRoot('r');
    runs.touch('r', () => ({ key: 'r' }));
    expect(runs.closeRoot('r')).toBe(false);
    expect(runs.size).toBe(1);
    expect(runs.closeRoot('r')).toBe(true);
    expect(released).toEqual([['r', 'root-ended']]);
    expect(runs.size).toBe(0);
  });

  it('measures idle time on a wall clock right across the rebase of its times after 2^30 ms', () => {
    let now = 1_764_547_200_000; // a Date.now() reading
    const released: string[] = [];
    const runs = new RunRegistry<string>(
      { idleTtlMs: 2 ** 31, maxLiveRuns: 10 },
      () => now,
      (key, _state, reason) => released.push(`${key}:${reason}`),
    );
    runs.touch('a', () => 'a');
    now += 2 ** 30 + 10; // this touch rebases the times; 'a' idle 2^30 + 10 ms
    runs.touch('b', () => 'b');
    now += 2 ** 30 - 20; // 'a' idle 2^31 - 10 ms, and a sweep is due
    runs.touch('b', () => 'b');
    expect(released).toEqual([]);
    now += 2 ** 29; // the next sweep: 'a' idle past 2^31 ms
    runs.touch('b', () => 'b');
    expect(released).toEqual(['a:idle']);
    expect(runs.peek('b')).toBe('b');
  });

  it('a held run is passed over by the idle sweep until let go; a run evicted meanwhile lets go of nothing', () => {
    const { runs, released, advance } = registry({ idleTtlMs: 100, maxLiveRuns: 2 });
    const held = runs.hold('a', () => ({ key: 'a' }));
    runs.touch('b', () => ({ key: 'b' }));
    advance(500);
    runs.touch('c', () => ({ key: 'c' })); // 'a' and 'b' idle 500 ms: only 'b' goes
    expect(released).toEqual([['b', 'idle']]);
    expect(runs.letGo(held)).toBe(runs.peek('a'));
    advance(99);
    runs.touch('c', () => ({ key: 'c' }));
    expect(released).toEqual([['b', 'idle']]);
    const evicted = runs.hold('d', () => ({ key: 'd' }));
    runs.touch('e', () => ({ key: 'e' }));
    runs.touch('f', () => ({ key: 'f' })); // capacity 2: 'a', 'c', then 'd' evicted
    expect(released.map(([key]) => key)).toEqual(['b', 'a', 'c', 'd']);
    expect(runs.letGo(evicted)).toBeUndefined();
  });

  it('clear releases every run with the given reason', () => {
    const { runs, released } = registry({ idleTtlMs: 1000, maxLiveRuns: 10 });
    for (const key of ['a', 'b']) runs.touch(key, () => ({ key }));
    runs.clear('shutdown');
    expect(released).toEqual([
      ['a', 'shutdown'],
      ['b', 'shutdown'],
    ]);
    expect(runs.size).toBe(0);
  });
});

describe('RunRegistry recency order', () => {
  /** Least-recently-active order kept the plain way: a `Map` re-inserted on every touch. */
  function reference(limits: { idleTtlMs: number; maxLiveRuns: number }, released: string[]) {
    const runs = new Map<string, number>();
    let lastSweep = 0;
    return {
      touch(key: string, now: number) {
        if (now - lastSweep >= limits.idleTtlMs / 4) {
          lastSweep = now;
          for (const [k, last] of runs) {
            if (now - last < limits.idleTtlMs) break;
            runs.delete(k);
            released.push(`${k}:idle`);
          }
        }
        const known = runs.has(key);
        runs.delete(key);
        runs.set(key, now);
        if (!known)
          while (runs.size > limits.maxLiveRuns) {
            const oldest = runs.keys().next().value as string;
            runs.delete(oldest);
            released.push(`${oldest}:capacity`);
          }
      },
      release(key: string) {
        if (runs.delete(key)) released.push(`${key}:root-ended`);
      },
      clear() {
        for (const key of [...runs.keys()]) released.push(`${key}:shutdown`);
        runs.clear();
      },
    };
  }

  it('releases runs in the order a re-inserted Map keeps, for any sequence of touches and releases', () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('touch' as const), key: fc.integer({ min: 0, max: 7 }), ms: fc.nat(40) }),
      fc.record({ op: fc.constant('release' as const), key: fc.integer({ min: 0, max: 7 }), ms: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.integer({ min: 1, max: 5 }), (steps, maxLiveRuns) => {
        const limits = { idleTtlMs: 100, maxLiveRuns };
        const expected: string[] = [];
        const model = reference(limits, expected);
        let now = 0;
        const got: string[] = [];
        const runs = new RunRegistry<number>(
          limits,
          () => now,
          (key, _state, reason) => got.push(`${key}:${reason}`),
        );
        for (const { op, key, ms } of steps) {
          now += ms;
          if (op === 'touch') {
            runs.touch(`r${key}`, () => key);
            model.touch(`r${key}`, now);
          } else {
            runs.release(`r${key}`, 'root-ended');
            model.release(`r${key}`);
          }
        }
        runs.clear('shutdown');
        model.clear();
        expect(got).toEqual(expected);
        expect(runs.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
