import { describe, expect, it } from 'vitest';
import { snapshotConfig } from '../../src/config/snapshot.js';

describe('snapshotConfig', () => {
  it('copies own enumerable string keys into objects without a prototype', () => {
    const source = Object.create({ inherited: true }) as Record<string | symbol, unknown>;
    source.own = { nested: [1, { deep: 'x' }] };
    source[Symbol('s')] = 1;
    Object.defineProperty(source, 'hidden', { value: 1, enumerable: false });
    const { value, issues } = snapshotConfig(source);
    expect(issues).toEqual([]);
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value as object)).toEqual(['own']);
    expect(JSON.parse(JSON.stringify(value))).toEqual({ own: { nested: [1, { deep: 'x' }] } });
  });

  it("keeps a JSON '__proto__' key as plain data, never as a prototype", () => {
    const { value } = snapshotConfig(JSON.parse('{"__proto__": {"enabled": false}}'));
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect((value as Record<string, unknown>).enabled).toBeUndefined();
    expect(Object.keys(value as object)).toEqual(['__proto__']);
  });

  it('reports a throwing getter by key path and keeps the rest', () => {
    const block = { enabled: true };
    Object.defineProperty(block, 'historySize', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const { value, issues } = snapshotConfig({ tools: { loopDetection: block } });
    expect(issues).toEqual([
      { path: 'tools.loopDetection.historySize', message: 'could not be read (boom); ignored', severity: 'warning' },
    ]);
    expect(JSON.parse(JSON.stringify(value))).toEqual({ tools: { loopDetection: { enabled: true } } });
  });

  it('stops at a cycle after a bounded depth, and a revoked Proxy is one issue', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => snapshotConfig(cyclic)).not.toThrow();
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const { value, issues } = snapshotConfig({ tools: proxy });
    expect(issues.map((issue) => issue.path)).toEqual(['tools']);
    expect(JSON.parse(JSON.stringify(value))).toEqual({});
  });

  it('depth 1 copies the own keys and leaves their values as they are', () => {
    const inner = { a: 1 };
    const { value } = snapshotConfig({ inner }, '(options)', 1);
    expect((value as { inner: unknown }).inner).toBe(inner);
  });
});
