/**
 * Iteration counts of the property-based reliability tests.
 *
 * CI runs each property with its small default. `FUZZ_RUNS=<n>` (the `npm run fuzz` long
 * run) replaces the defaults with `n` (the span-operation fuzz and the differential test run
 * exactly `n` sequences; heavier properties `n / longDivisor`); `FUZZ_SEED=<n>` replays a
 * failing run.
 */
export function fuzzRuns(ciDefault: number, longDivisor = 1): number {
  const raw = process.env.FUZZ_RUNS?.trim();
  if (!raw) return ciDefault;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? Math.max(ciDefault, Math.floor(n / longDivisor)) : ciDefault;
}

/** True in the long run (`FUZZ_RUNS` set). */
export const LONG_RUN = Boolean(process.env.FUZZ_RUNS?.trim());

/**
 * fast-check parameters shared by the properties. `longDivisor` scales heavy properties
 * (hundreds of spans per sequence) down in the long run: they get `FUZZ_RUNS / longDivisor`.
 */
export function fcParams(
  ciDefault: number,
  longDivisor = 1,
): { numRuns: number; seed?: number; endOnFailure: boolean } {
  const seed = process.env.FUZZ_SEED?.trim();
  return { numRuns: fuzzRuns(ciDefault, longDivisor), endOnFailure: true, ...(seed ? { seed: Number(seed) } : {}) };
}

/** Per-test timeout: generous in the long run, CI default otherwise. */
export function fuzzTimeout(ciMs: number): number {
  return LONG_RUN ? 6 * 60 * 60 * 1000 : ciMs;
}

/** Prints how many sequences a property covered and how long it took (quoted by the README). */
export function reportCount(name: string, sequences: number, startedAt: number): void {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  console.log(`[fuzz] ${name}: ${sequences} sequences in ${seconds} s`);
}
