import fc from 'fast-check';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTarget } from '../../../src/engine/hashing/write-target.js';

/** Paths built from the segments that matter to normalisation: empty, `.`, `..`, dotted names. */
const pathLike = fc
  .array(fc.constantFrom('', '.', '..', 'a', 'src', '.env', 'x.ts', '..b', 'c..', ' ', 'd e'), { maxLength: 6 })
  .map((segments) => segments.join('/'));

describe('writeTarget', () => {
  it('normalises the path exactly as posix.normalize does', () => {
    fc.assert(
      fc.property(pathLike, (path) => {
        const target = writeTarget({ path });
        if (path.trim() === '') expect(target).toBeUndefined();
        else expect(target).toEqual({ path: posix.normalize(path) });
      }),
      { numRuns: 2000 },
    );
  });

  it('resolves a relative path against an absolute cwd, and ignores a relative cwd', () => {
    expect(writeTarget({ path: 'b/./c.ts', cwd: '/repo/a' })).toEqual({ path: '/repo/a/b/c.ts' });
    expect(writeTarget({ path: '/etc/x', cwd: '/repo' })).toEqual({ path: '/etc/x' });
    expect(writeTarget({ path: 'b//c.ts', cwd: 'repo' })).toEqual({ path: 'b/c.ts' });
  });

  it('reads file_path when path is absent, and names no target without a usable path', () => {
    expect(writeTarget({ file_path: '/repo/./a.ts' })).toEqual({ path: '/repo/a.ts' });
    expect(writeTarget({ path: '   ' })).toBeUndefined();
    expect(writeTarget({ path: 3 })).toBeUndefined();
    expect(writeTarget(['/repo/a.ts'])).toBeUndefined();
    expect(writeTarget('/repo/a.ts')).toBeUndefined();
    expect(writeTarget(null)).toBeUndefined();
  });

  it('keeps paths that are already normal as they are', () => {
    for (const path of ['/repo/src/a.ts', 'a/b/', '/', 'a', '/repo/.config/x', ' a '])
      expect(writeTarget({ path })).toEqual({ path: posix.normalize(path) });
  });
});
