/** `RunRegistry`: live run states released by root end, idle TTL (lazily) and the live-run cap. */
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
