/** OpenClaw's hashing additions: `exec` ignores `title`; untrusted-content nonces are canonicalised. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, hashToolArgs, hashToolOutcome, type Digester } from '../../../src/engine-entry.js';
import { canonicalizeUntrustedContentIds } from '../../../src/engine/hashing/untrusted-content.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const wrapped = (id: string, body = 'page text') =>
  `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>${body}<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`;
const ID_A = '0123456789abcdef';
const ID_B = 'fedcba9876543210';

describe('exec ignores title', () => {
  it('two execs that differ only in title have one args hash; other tools keep title', () => {
    expect(hashToolArgs(digester, 'exec', { command: 'ls', title: 'List files' })).toBe(
      hashToolArgs(digester, 'exec', { command: 'ls', title: 'Look around' }),
    );
    expect(hashToolArgs(digester, 'exec', { command: 'ls', title: 'x' })).toBe(
      hashToolArgs(digester, 'exec', { command: 'ls' }),
    );
    expect(hashToolArgs(digester, 'exec', { command: 'ls' })).not.toBe(
      hashToolArgs(digester, 'exec', { command: 'pwd' }),
    );
    expect(hashToolArgs(digester, 'browser', { url: 'u', title: 'a' })).not.toBe(
      hashToolArgs(digester, 'browser', { url: 'u', title: 'b' }),
    );
  });
});

describe('untrusted-content nonce pairs', () => {
  const fetched = (text: string) =>
    hashToolOutcome(digester, { toolName: 'web_fetch', result: { content: [{ type: 'text', text }] } });

  it('the same content wrapped with fresh nonces hashes the same; different content does not', () => {
    expect(fetched(wrapped(ID_A)).resultHash).toBe(fetched(wrapped(ID_B)).resultHash);
    expect(fetched(wrapped(ID_A)).resultHash).not.toBe(fetched(wrapped(ID_B, 'other page')).resultHash);
  });

  it('works through repeated JSON encoding (2^n−1 backslashes before the quotes)', () => {
    const once = JSON.stringify({ page: wrapped(ID_A) });
    const twice = JSON.stringify({ wrapped: once });
    expect(canonicalizeUntrustedContentIds(once)).toBe(JSON.stringify({ page: wrapped('0000000000000000') }));
    expect(canonicalizeUntrustedContentIds(twice)).toBe(
      JSON.stringify({ wrapped: JSON.stringify({ page: wrapped('0000000000000000') }) }),
    );
    expect(fetched(twice).resultHash).toBe(
      fetched(JSON.stringify({ wrapped: JSON.stringify({ page: wrapped(ID_B) }) })).resultHash,
    );
  });

  it('rewrites the shortest pair (empty body); a text too short to hold a pair is returned as is', () => {
    const shortest = wrapped(ID_A, '');
    expect(canonicalizeUntrustedContentIds(shortest)).toBe(wrapped('0000000000000000', ''));
    expect(canonicalizeUntrustedContentIds(`{${shortest}}`)).toBe(`{${wrapped('0000000000000000', '')}}`);
    const cut = shortest.slice(0, -1);
    expect(canonicalizeUntrustedContentIds(cut)).toBe(cut);
  });

  it('malformed, empty or mismatched ids, and escapes that are not 2^n−1, are kept as they are', () => {
    for (const text of [
      wrapped('xyz'),
      wrapped(''),
      `<<<EXTERNAL_UNTRUSTED_CONTENT id="${ID_A}">>>x<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${ID_B}">>>`,
      `<<<EXTERNAL_UNTRUSTED_CONTENT id=\\\\"${ID_A}\\\\">>>x<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\\\\"${ID_A}\\\\">>>`,
      'no marker at all',
    ])
      expect(canonicalizeUntrustedContentIds(text)).toBe(text);
  });

  it('thrown errors that wrap external content hash the same across fresh nonces', () => {
    const thrown = (id: string) =>
      hashToolOutcome(digester, {
        toolName: 'web_fetch',
        error: new Error(`fetch failed: ${wrapped(id, 'ECONNRESET')}`),
      });
    expect(thrown(ID_A).resultHash).toBe(thrown(ID_B).resultHash);
  });
});
