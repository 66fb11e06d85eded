import { comparableOutcome, isVeto, nearDuplicate, type ComparableOutcome } from './outcome-similarity.js';
import type { ScopeLog } from './record-ring.js';
import { volatileFieldsOf } from './volatile-fields.js';

/** The near-duplicate outcomes a tool's next call would follow (`count` 0 = none). */
export interface SimilarOutcomes {
  /** The tool's newest records in a row that are near-duplicates of the newest outcome (its vetoes included once anchored). */
  readonly count: number;
  /** Their distinct args hashes, oldest first. */
  readonly signatures: readonly string[];
  /** The volatile result fields masked before the comparison (sorted; empty when none was learned). */
  readonly maskedFields: readonly string[];
}

const NONE: SimilarOutcomes = Object.freeze({ count: 0, signatures: [], maskedFields: [] });

/**
 * The contiguous newest records of `toolName` (stopping at another tool) whose outcomes are
 * near-duplicates of the newest outcome: equal hashes, sketches at least `percent` % similar, or
 * equal fields once the tool's learned volatile fields are masked. Vetoes in between count once
 * an older near-duplicate anchors them; records still pending are skipped.
 */
export function similarOutcomesOf(
  scope: ScopeLog | undefined,
  toolName: string,
  percent: number,
  volatileObservations: number,
): SimilarOutcomes {
  if (!scope) return NONE;
  const masked = new Set(volatileFieldsOf(scope, toolName, volatileObservations));
  let anchor: ComparableOutcome | undefined;
  let count = 0;
  let vetoes = 0;
  const newestFirst: string[] = [];
  for (let s = scope.end - 1; s >= scope.first; s -= 1) {
    if (!scope.isToolName(s, toolName)) break;
    const outcome = comparableOutcome(scope, s);
    if (outcome === undefined) {
      if (isVeto(scope, s)) vetoes += 1;
      continue;
    }
    if (anchor === undefined) anchor = outcome;
    else if (!nearDuplicate(outcome, anchor, percent, masked)) break;
    count += vetoes + 1;
    vetoes = 0;
    newestFirst.push(scope.argsHash(s));
  }
  if (count === 0) return NONE;
  const signatures = [...new Set(newestFirst.reverse())];
  return { count, signatures, maskedFields: [...masked] };
}
