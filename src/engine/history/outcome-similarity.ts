import { sketchesSimilar } from '../hashing/result-sketch.js';
import type { ResultFields } from '../types.js';
import type { ScopeLog } from './record-ring.js';

/** What the near-duplicate comparisons read of a record's outcome. */
export interface ComparableOutcome {
  readonly resultHash: string;
  readonly sketch: number | undefined;
  readonly shape: number | undefined;
  readonly fields: ResultFields | undefined;
}

/** The record's outcome for comparison; `undefined` when it has no hash (a veto, or still pending). */
export function comparableOutcome(scope: ScopeLog, seq: number): ComparableOutcome | undefined {
  const resultHash = scope.resultHash(seq);
  if (resultHash === undefined) return undefined;
  const details = scope.details(seq);
  return { resultHash, sketch: details?.resultSketch, shape: details?.resultShape, fields: details?.resultFields };
}

/** Whether the record is the loop's own veto (a blocked call: no outcome, not pending). */
export function isVeto(scope: ScopeLog, seq: number): boolean {
  return scope.outcomeKind(seq) === 'tool-loop-veto';
}

/**
 * Whether two results are equal once the `masked` paths are left out: the same paths, equal
 * values on every other one, and at least one other one (fields that all change are no evidence).
 */
export function fieldsEqualMasked(a: ResultFields, b: ResultFields, masked: ReadonlySet<string>): boolean {
  if (a.paths.length !== b.paths.length) return false;
  let compared = 0;
  for (let i = 0; i < a.paths.length; i += 1) {
    if (a.paths[i] !== b.paths[i]) return false;
    if (masked.has(a.paths[i])) continue;
    if (a.values[i] !== b.values[i]) return false;
    compared += 1;
  }
  return compared > 0;
}

/**
 * Whether two outcomes are near-duplicates: the same hash; the same text but for numbers and
 * whitespace (equal shapes); below 100 %, sketches estimating at least `percent` % shingle
 * similarity; or, when a mask was learned, equal fields outside the mask.
 */
export function nearDuplicate(
  a: ComparableOutcome,
  b: ComparableOutcome,
  percent: number,
  masked?: ReadonlySet<string>,
): boolean {
  if (a.resultHash === b.resultHash) return true;
  if (a.shape !== undefined && a.shape === b.shape) return true;
  if (percent < 100 && a.sketch !== undefined && b.sketch !== undefined && sketchesSimilar(a.sketch, b.sketch, percent))
    return true;
  return (
    masked !== undefined &&
    masked.size > 0 &&
    a.fields !== undefined &&
    b.fields !== undefined &&
    fieldsEqualMasked(a.fields, b.fields, masked)
  );
}
