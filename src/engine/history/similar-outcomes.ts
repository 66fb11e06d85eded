import { isVeto, type RunLog } from './run-log.js';

/** The repeated failure a tool's next call would follow (`count` 0 = none). */
export interface SimilarOutcomes {
  /** The tool's newest records in a row that failed with the newest failure's message (its vetoes included once anchored). */
  readonly count: number;
  /** Their distinct args hashes, oldest first. */
  readonly signatures: readonly string[];
}

const NONE: SimilarOutcomes = Object.freeze({ count: 0, signatures: [] });

/**
 * The contiguous newest records of `toolName` (stopping at another tool) that failed with the
 * same explained error as the newest one, word for word, whatever their arguments. A success
 * ends the streak: results that look alike across different arguments (`available`, an empty
 * output, `Transfer successful`) are quiet progress, not a loop. So does a failure whose message
 * is too short to explain it. Vetoes in between count once an older failure anchors them;
 * records still pending are skipped.
 */
export function similarOutcomesOf(log: RunLog | undefined, toolName: string): SimilarOutcomes {
  if (!log) return NONE;
  let anchor: string | undefined;
  let count = 0;
  let vetoes = 0;
  const newestFirst: string[] = [];
  for (let s = log.end - 1; s >= log.first; s -= 1) {
    if (log.toolName(s) !== toolName) break;
    if (!log.hasResultHash(s)) {
      if (isVeto(log, s)) vetoes += 1;
      continue;
    }
    if (!log.facts(s)?.explainedFailure) break;
    const resultHash = log.resultHash(s)!;
    if (anchor !== undefined && resultHash !== anchor) break;
    anchor ??= resultHash;
    count += vetoes + 1;
    vetoes = 0;
    newestFirst.push(log.argsHash(s));
  }
  if (count === 0) return NONE;
  return { count, signatures: [...new Set(newestFirst.reverse())] };
}
