/** `npm run fuzz` sizes every property by `FUZZ_RUNS`; without it each runs its small CI default. */
import { afterEach, describe, expect, it } from 'vitest';
import { fcParams, fuzzRuns } from './fuzz-runs.js';

const saved = { runs: process.env.FUZZ_RUNS, seed: process.env.FUZZ_SEED };
afterEach(() => {
  for (const [key, value] of [
    ['FUZZ_RUNS', saved.runs],
    ['FUZZ_SEED', saved.seed],
  ] as const)
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
});

describe('fuzz run sizes', () => {
  it('without FUZZ_RUNS a property runs its CI default', () => {
    delete process.env.FUZZ_RUNS;
    expect(fuzzRuns(40)).toBe(40);
    expect(fcParams(40).numRuns).toBe(40);
  });

  it('FUZZ_RUNS sets the long run, heavy properties a share of it, never fewer than the default', () => {
    process.env.FUZZ_RUNS = '30000';
    expect(fuzzRuns(40)).toBe(30000);
    expect(fuzzRuns(40, 100)).toBe(300);
    expect(fuzzRuns(500, 100)).toBe(500);
  });

  it('an unusable FUZZ_RUNS keeps the defaults; FUZZ_SEED replays a run', () => {
    process.env.FUZZ_RUNS = 'many';
    expect(fuzzRuns(40)).toBe(40);
    process.env.FUZZ_SEED = '1234';
    expect(fcParams(40).seed).toBe(1234);
  });

  it('`npm run fuzz` sets FUZZ_RUNS and runs this suite', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.fuzz).toMatch(/^FUZZ_RUNS=\d+ vitest run test\/robustness$/);
  });
});
