import { isVeto, type RunLog } from './run-log.js';

/** Shortest and longest cycle looked for: A→B→A… up to A→B→C→D→E→A… */
export const MIN_CYCLE_PERIOD = 2;
export const MAX_CYCLE_PERIOD = 5;
/** Records scanned for a cycle at most (a per-call bound, whatever `historySize` is). */
const MAX_CYCLE_SCAN = MAX_CYCLE_PERIOD * 64;

/** The result-repeating cycle a call would continue (`count` 0 = none). */
export interface ResultCycle {
  /** The cycle's records (its vetoes included) plus the call. */
  readonly count: number;
  /** Distinct calls in one lap. */
  readonly period: number;
  /** Full laps the concrete records repeat (each position with its arguments and its result). */
  readonly laps: number;
  /** The members' args hashes in lap order, oldest first. */
  readonly signatures: readonly string[];
  /** The cycle had already tripped: blocked members follow it, and this call is another member. */
  readonly tripped: boolean;
}

const NONE: ResultCycle = Object.freeze({ count: 0, period: 0, laps: 0, signatures: [], tripped: false });

/**
 * The cycle of period 2–5 that ends at the run's newest concrete records — each record equal
 * in signature and result hash to the one a period before it, the lap irreducible to a shorter
 * period and made of at least two signatures — when the call with signature `key` continues it.
 *
 * Per-cycle breaking, derived from the records alone: when loop vetoes of members follow the
 * cycle and the cycle had `criticalLaps` laps before them, it has tripped, and any member call
 * continues it (the agent switching to another member does not escape it). A call outside the
 * cycle, or any concrete outcome after the vetoes, ends it.
 */
export function resultCycleOf(log: RunLog | undefined, key: string, criticalLaps: number): ResultCycle {
  if (!log) return NONE;
  let s = log.end - 1;
  const vetoed: string[] = [];
  for (; s >= log.first && isVeto(log, s); s -= 1) vetoed.push(log.keyOf(s));
  const keys: string[] = [];
  const hashes: string[] = [];
  const args: string[] = [];
  for (; s >= log.first && keys.length < MAX_CYCLE_SCAN; s -= 1) {
    const hash = log.resultHash(s);
    if (hash === undefined) break;
    keys.push(log.keyOf(s));
    hashes.push(hash);
    args.push(log.argsHash(s));
  }
  let best: { period: number; tail: number } | undefined;
  for (let period = MIN_CYCLE_PERIOD; period <= MAX_CYCLE_PERIOD && period <= keys.length; period += 1) {
    if (!irreducibleLap(keys, hashes, period)) continue;
    let tail = period;
    while (tail < keys.length && keys[tail] === keys[tail - period] && hashes[tail] === hashes[tail - period])
      tail += 1;
    if (tail > period && (best === undefined || tail - period > best.tail - best.period)) best = { period, tail };
  }
  if (!best) return NONE;
  const { period, tail } = best;
  const laps = Math.floor(tail / period);
  const members = keys.slice(0, period);
  const signatures = args.slice(0, period).reverse();
  if (vetoed.length === 0) {
    if (keys[period - 1] !== key) return NONE;
    return { count: tail + 1, period, laps, signatures, tripped: false };
  }
  const tripped = laps >= criticalLaps && members.includes(key) && vetoed.every((veto) => members.includes(veto));
  return tripped ? { count: tail + vetoed.length + 1, period, laps, signatures, tripped } : NONE;
}

/** Whether the newest `period` records form a lap of at least two signatures that no shorter period repeats. */
function irreducibleLap(keys: readonly string[], hashes: readonly string[], period: number): boolean {
  let distinct = false;
  for (let i = 1; i < period && !distinct; i += 1) distinct = keys[i] !== keys[0];
  if (!distinct) return false;
  for (let d = 1; d < period; d += 1) {
    if (period % d !== 0) continue;
    let repeats = true;
    for (let i = d; i < period && repeats; i += 1) repeats = keys[i] === keys[i - d] && hashes[i] === hashes[i - d];
    if (repeats) return false;
  }
  return true;
}
