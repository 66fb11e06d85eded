import fc from 'fast-check';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDigester } from '../../../src/engine-entry.js';
import { writeTargetHash, writeTargetPath } from '../../../src/engine/hashing/write-target.js';

/** Paths built from the segments that matter to normalisation: empty, `.`, `..`, dotted names. */
const pathLike = fc
  .array(fc.constantFrom('', '.', '..', 'a', 'src', '.env', 'x.ts', '..b', 'c..', ' ', 'd e'), { maxLength: 6 })
  .map((segments) => segments.join('/'));

describe('writeTargetPath', () => {
  it('normalises the path exactly as posix.normalize does', () => {
    fc.assert(
      fc.property(pathLike, (path) => {
        const target = writeTargetPath({ path });
        if (path.trim() === '') expect(target).toBeUndefined();
        else expect(target).toBe(posix.normalize(path));
      }),
      { numRuns: 2000 },
    );
  });

  it('resolves a relative path against an absolute cwd, and ignores a relative cwd', () => {
    expect(writeTargetPath({ path: 'b/./c.ts', cwd: '/repo/a' })).toBe('/repo/a/b/c.ts');
    expect(writeTargetPath({ path: '/etc/x', cwd: '/repo' })).toBe('/etc/x');
    expect(writeTargetPath({ path: 'b//c.ts', cwd: 'repo' })).toBe('b/c.ts');
  });

  it('reads file_path when path is absent, and names no target without a usable path', () => {
    expect(writeTargetPath({ file_path: '/repo/./a.ts' })).toBe('/repo/a.ts');
    expect(writeTargetPath({ path: '   ' })).toBeUndefined();
    expect(writeTargetPath({ path: 3 })).toBeUndefined();
    expect(writeTargetPath(['/repo/a.ts'])).toBeUndefined();
    expect(writeTargetPath('/repo/a.ts')).toBeUndefined();
    expect(writeTargetPath(null)).toBeUndefined();
  });

  it('keeps paths that are already normal as they are', () => {
    for (const path of ['/repo/src/a.ts', 'a/b/', '/', 'a', '/repo/.config/x', ' a '])
      expect(writeTargetPath({ path })).toBe(posix.normalize(path));
  });
});

describe('writeTargetHash', () => {
  it('digests the target path as a text, and reuses a known digest only where there is a target', async () => {
    const digester = await createDigester();
    expect(writeTargetHash(digester, { path: '/repo/./a.ts' })).toBe(digester.digestText('/repo/a.ts'));
    expect(writeTargetHash(digester, { file_path: 'b', cwd: '/repo' })).toBe(digester.digestText('/repo/b'));
    expect(writeTargetHash(digester, { path: '  ' })).toBeUndefined();
    expect(writeTargetHash(digester, { path: '/repo/a.ts' }, 'known')).toBe('known');
    expect(writeTargetHash(digester, { content: 'x' }, 'known')).toBeUndefined();
    expect(writeTargetHash(digester, undefined, 'known')).toBeUndefined();
  });
});
