import { sketchesSimilar } from '../hashing/result-sketch.js';
import type { RunLog } from './run-log.js';

/** What the near-duplicate comparisons read of a record's outcome. */
export interface ComparableOutcome {
  readonly resultHash: string;
  readonly sketch: number | undefined;
  readonly shape: number | undefined;
}

/** The record's outcome for comparison; `undefined` when it has no hash (a veto, or still pending). */
export function comparableOutcome(log: RunLog, seq: number): ComparableOutcome | undefined {
  const resultHash = log.resultHash(seq);
  if (resultHash === undefined) return undefined;
  const details = log.facts(seq);
  return { resultHash, sketch: details?.resultSketch, shape: details?.resultShape };
}

/**
 * Whether two outcomes are near-duplicates: the same hash; the same text but for numbers and
 * whitespace (equal shapes); or, below 100 %, sketches estimating at least `percent` % shingle
 * similarity.
 */
export function nearDuplicate(a: ComparableOutcome, b: ComparableOutcome, percent: number): boolean {
  if (a.resultHash === b.resultHash) return true;
  if (a.shape !== undefined && a.shape === b.shape) return true;
  return (
    percent < 100 && a.sketch !== undefined && b.sketch !== undefined && sketchesSimilar(a.sketch, b.sketch, percent)
  );
}
