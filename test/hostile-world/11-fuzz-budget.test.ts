/**
 * Row 11: `npm run fuzz` must fit in 10 minutes on the project's 2-core machines, and the README
 * must state what it runs and what that was measured to take. The long run itself is too slow
 * for CI; this keeps the script and the README's figures from drifting apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('npm run fuzz', () => {
  const runs = Number(/FUZZ_RUNS=(\d+)/.exec(pkg.scripts.fuzz ?? '')?.[1]);

  it('sets its size explicitly', () => {
    expect(Number.isSafeInteger(runs) && runs > 0).toBe(true);
  });

  it('the README states that size and the measured time it is based on', () => {
    const sentence = readme.slice(readme.indexOf('`npm run fuzz` is the long run'));
    expect(sentence.length).toBeLessThan(readme.length);
    const paragraph = sentence.slice(0, sentence.indexOf('\n\n'));
    expect(paragraph).toContain(`FUZZ_RUNS=${runs}`);
    expect(paragraph).toMatch(/took \d+ s/);
    expect(paragraph).toMatch(/10 minutes/);
  });
});
