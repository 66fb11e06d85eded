import { beforeAll, describe, expect, it } from 'vitest';
import { hashToolArgs } from '../../../src/engine/hashing/args-hash.js';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

describe('hashToolArgs', () => {
  it('scenario 4: identical args hash equally, different args or tools differ', () => {
    const h = (tool: string, params: unknown) => hashToolArgs(digester, tool, params);
    expect(h('read', { path: '/file.txt' })).toBe(h('read', { path: '/file.txt' }));
    expect(h('read', { path: '/file1.txt' })).not.toBe(h('read', { path: '/file2.txt' }));
    expect(h('read', { path: '/file.txt' })).not.toBe(h('write', { path: '/file.txt' }));
    expect(h('tool', { a: 1, b: 2 })).toBe(h('tool', { b: 2, a: 1 }));
  });

  it('scenario 4: non-object params give tool: + 16 hex; long params do not grow the hash', () => {
    for (const params of ['string-param', 123, null])
      expect(hashToolArgs(digester, 'tool', params)).toMatch(/^tool:[0-9a-f]{16}$/);
    const long = hashToolArgs(digester, 'read', { path: 'x'.repeat(20_000) });
    expect(long).toMatch(/^read:[0-9a-f]{16}$/);
    expect(long.length).toBe('read'.length + 1 + 16);
  });

  it('scenario 4: a circular object equals its equivalent circular object', () => {
    const make = () => {
      const params: Record<string, unknown> = { path: '/a' };
      params.self = params;
      params.shared = [params, { back: params }];
      return params;
    };
    expect(hashToolArgs(digester, 'read', make())).toBe(hashToolArgs(digester, 'read', make()));
  });

  it('hashes a circular object without collapsing repeated references', () => {
    const shared = { v: 1 };
    const once = { a: shared, b: { v: 2 } };
    const twice = { a: shared, b: shared };
    expect(hashToolArgs(digester, 't', once)).not.toBe(hashToolArgs(digester, 't', twice));
    expect(hashToolArgs(digester, 't', twice)).toBe(hashToolArgs(digester, 't', { a: { v: 1 }, b: { v: 1 } }));
  });

  it('is the tool name plus the digest of the params', () => {
    expect(hashToolArgs(digester, 'read', { path: '/a' })).toBe(`read:${digester.digest({ path: '/a' })}`);
  });

  it('update_plan: rewording hashes the same, a status change differs', () => {
    const base = {
      explanation: 'first',
      plan: [
        { step: 'Read', status: 'completed' },
        { step: 'Write', status: 'pending' },
      ],
    };
    const reworded = {
      explanation: 'second wording',
      plan: [
        { step: 'Read it', status: 'completed' },
        { step: 'Write it', status: 'pending' },
      ],
    };
    const progressed = {
      explanation: 'first',
      plan: [
        { step: 'Read', status: 'completed' },
        { step: 'Write', status: 'in_progress' },
      ],
    };
    expect(hashToolArgs(digester, 'update_plan', reworded)).toBe(hashToolArgs(digester, 'update_plan', base));
    expect(hashToolArgs(digester, 'update_plan', progressed)).not.toBe(hashToolArgs(digester, 'update_plan', base));
    expect(hashToolArgs(digester, 'other_tool', reworded)).not.toBe(hashToolArgs(digester, 'other_tool', base));
  });
});
