/** OpenClaw's loop-detection scenarios 1–4 (Enablement and basics). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, HASH_16_HEX } from '../../helpers/engine-harness.js';

describe('enablement and basics', () => {
  it('scenario 1: no config, 20 identical read calls → not stuck (detection is off by default)', async () => {
    const h = await EngineHarness.create(undefined);
    expect(h.config.enabled).toBe(false);
    h.calls(20, 'read', { path: '/same.txt' });
    const checked = h.check('read', { path: '/same.txt' });
    expect(checked.verdict).toBeUndefined();
    expect(checked.blocked).toBe(false);
    expect(checked.emit).toBe(false);
    expect(h.detect('read', { path: '/same.txt' })).toBeUndefined();
    expect(h.logger.lines).toEqual([]);
    // History is still recorded when `enabled` is unset, for the guard.
    expect(h.records()).toHaveLength(20);

    // Contrast: the very same history with C0 is stuck, so the "not stuck" above is due to enablement.
    const enabled = await EngineHarness.create(C0);
    enabled.calls(20, 'read', { path: '/same.txt' });
    expect(enabled.detect('read', { path: '/same.txt' })?.detector).toBe('generic_repeat');
  });

  it('scenario 2: C0, 15 reads of different files; check a new file → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    h.calls(15, 'read', (i) => ({ path: `/file${i}.txt` }));
    expect(h.records()).toHaveLength(15);
    const checked = h.check('read', { path: '/new-file.txt' });
    expect(checked.verdict).toBeUndefined();
    expect(checked.blocked).toBe(false);
    expect(h.logger.lines).toEqual([]);
  });

  it('scenario 3: C0, empty history; check tool{arg:1} → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    expect(h.history.size).toBe(0);
    const checked = h.check('tool', { arg: 1 });
    expect(checked).toMatchObject({ emit: false, blocked: false });
    expect(checked.verdict).toBeUndefined();
  });

  describe('scenario 4: hashing', () => {
    // Deliberate difference: our digest is xxhash64, so argsHash is `<tool>:` + 16 lowercase
    // hex characters instead of the spec's `<tool>:` + 64-hex SHA-256.
    const expectHashShape = (hash: string, tool: string) => {
      expect(hash.startsWith(`${tool}:`)).toBe(true);
      expect(hash.slice(tool.length + 1)).toMatch(HASH_16_HEX);
      expect(hash).toHaveLength(tool.length + 1 + 16);
    };

    it('scenario 4: same params → equal argsHash; different path, tool or params → different', async () => {
      const h = await EngineHarness.create(C0);
      const a = h.argsHash('read', { path: '/file.txt' });
      expect(h.argsHash('read', { path: '/file.txt' })).toBe(a);
      expectHashShape(a, 'read');
      expect(h.argsHash('read', { path: '/file1' })).not.toBe(h.argsHash('read', { path: '/file2' }));
      const write = h.argsHash('write', { path: '/file.txt' });
      expect(write).not.toBe(a);
      expectHashShape(write, 'write');
      // argsHash = `<toolName>:<digest(params)>`: only the tool prefix differs.
      expect(write.slice('write:'.length)).toBe(a.slice('read:'.length));
    });

    it('scenario 4: key order does not matter ({a:1,b:2} equals {b:2,a:1})', async () => {
      const h = await EngineHarness.create(C0);
      expect(h.argsHash('tool', { a: 1, b: 2 })).toBe(h.argsHash('tool', { b: 2, a: 1 }));
      expect(h.argsHash('tool', { a: 1, b: 2 })).not.toBe(h.argsHash('tool', { a: 2, b: 1 }));
    });

    it('scenario 4: non-object params ("string-param", 123, null) give `tool:` + 16 lowercase hex', async () => {
      const h = await EngineHarness.create(C0);
      const hashes = ['string-param', 123, null].map((params) => h.argsHash('tool', params));
      for (const hash of hashes) expectHashShape(hash, 'tool');
      expect(new Set(hashes).size).toBe(3);
    });

    it('scenario 4: a 20 000-character param still gives `read:` + 16 hex', async () => {
      const h = await EngineHarness.create(C0);
      const long = 'x'.repeat(20_000);
      const hash = h.argsHash('read', { path: long });
      expectHashShape(hash, 'read');
      expect(hash).not.toBe(h.argsHash('read', { path: `${long}y` }));
    });

    it('scenario 4: a circular object equals its equivalent circular object', async () => {
      const h = await EngineHarness.create(C0);
      const make = (name: string) => {
        const node: Record<string, unknown> = { name, items: [1, 2] };
        node.self = node;
        return node;
      };
      const first = h.argsHash('tool', make('a'));
      expectHashShape(first, 'tool');
      expect(h.argsHash('tool', make('a'))).toBe(first);
      expect(h.argsHash('tool', make('b'))).not.toBe(first);
      // Shared (non-cyclic) references are serialised in full, not collapsed to "[Circular]".
      const shared = { v: 1 };
      expect(h.argsHash('tool', { x: shared, y: shared })).toBe(h.argsHash('tool', { x: { v: 1 }, y: { v: 1 } }));
    });
  });
});
