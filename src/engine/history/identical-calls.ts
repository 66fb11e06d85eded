import { comparableOutcome, nearDuplicate, type ComparableOutcome } from './comparable-outcome.js';
import type { RunLog } from './run-log.js';

/** The streak of identical calls a call with this signature would continue. */
export interface IdenticalCalls {
  /** The newest records in a row with this signature (vetoes and pending calls included). */
  readonly count: number;
  /**
   * How many of those, newest first, gained little: each outcome equal to or a near-duplicate of
   * the next newer one (vetoes and pending calls continue it). 0 when `count` is.
   */
  readonly lowGain: number;
}

/**
 * The newest records of the run, in a row, with signature `key` (any other call ends the
 * streak), and the low-gain part of it: outcomes that repeat the newer one up to `percent` %
 * similarity (results that change only in numbers, such as a clock read, stay low-gain).
 */
export function identicalCallsOf(log: RunLog | undefined, key: string, percent: number): IdenticalCalls {
  if (!log) return { count: 0, lowGain: 0 };
  let count = 0;
  let lowGain = 0;
  let gaining = false;
  let newer: ComparableOutcome | undefined;
  for (let s = log.end - 1; s >= log.first; s -= 1) {
    if (log.keyOf(s) !== key) break;
    count += 1;
    if (gaining) continue;
    const outcome = comparableOutcome(log, s);
    if (outcome !== undefined) {
      if (newer !== undefined && !nearDuplicate(outcome, newer, percent)) {
        gaining = true;
        continue;
      }
      newer = outcome;
    }
    lowGain += 1;
  }
  return { count, lowGain };
}
