import type { OutcomeHash } from '../../engine/types.js';
import type { ReplayEvent } from './replay-event.js';

/** The shortest and longest repeated sequence of distinct calls marked as a cycle on the timeline. */
const MIN_CYCLE_PERIOD = 2;
const MAX_CYCLE_PERIOD = 5;

/** What became of a call's outcome on the timeline. */
export type TimelineOutcome = 'pending' | 'result' | 'none' | 'vetoed';

/** One call of a run, as the HTML report draws it. */
export interface TimelineCall {
  /** 1-based index of the call in its run (as in the report's events). */
  readonly index: number;
  readonly step?: number;
  readonly toolName: string;
  /** The full `argsHash`; absent until the arguments are known (a call judged at its end). */
  argsHash?: string;
  /** The recorded outcome's hash (`resultHash`); absent when none was recorded. */
  resultHash?: string;
  /** `vetoed`: blocked before it ran; `none`: it ran and nothing was recorded. */
  outcome: TimelineOutcome;
  /** When the call was judged: before it ran (`start`) or at its end. */
  judged?: 'start' | 'end';
  /** The first earlier call with the same arguments, and how many times they have been seen (2 = first repeat). */
  repeatOf?: number;
  occurrence?: number;
  /** The same arguments and the same outcome as an earlier call (that call's index). */
  sameOutcomeAs?: number;
  /** Part of a repeated sequence of 2–5 distinct calls (its period), as recorded. */
  cyclePeriod?: number;
  /** Part of the loop a block stopped (the index of the blocked call). */
  loopOf?: number;
  /** The emitted events on this call (warnings, blocks, aborts). */
  readonly events: ReplayEvent[];
}

/** What a run's timeline holds when the report is written. */
export interface RunTimelineView {
  /** The calls kept, in index order (see {@link RunTimeline} for which). */
  readonly calls: readonly TimelineCall[];
  /** The most calls one run keeps. */
  readonly limit: number;
}

/**
 * The per-call record of one run that the HTML report draws: tool, short hashes, repeats,
 * repeated sequences, and the verdicts on each call. Kept only when that report is asked for.
 *
 * Memory is bounded by `limit` calls per run (plus one map entry per distinct call, to name
 * repeats): until the run's first finding it keeps its first `limit / 2` calls and a sliding
 * lead-in of the latest `limit / 4`, so the calls that led into the loop are there; from the
 * first finding on, calls are kept until `limit` are held.
 */
export class RunTimeline {
  private readonly kept: TimelineCall[] = [];
  private readonly byIndex = new Map<number, TimelineCall>();
  private readonly seenArgs = new Map<string, { first: number; count: number }>();
  private readonly seenOutcomes = new Map<string, number>();
  /** The latest argument hashes, oldest first, to find repeated sequences. */
  private readonly recent: { readonly index: number; readonly argsHash: string }[] = [];
  private readonly head: number;
  private readonly leadIn: number;
  private anchored = false;

  constructor(readonly limit: number) {
    this.head = Math.max(1, Math.floor(limit / 2));
    this.leadIn = Math.max(1, Math.floor(limit / 4));
  }

  /** A call starts (numbered `index`); `argsHash` when its arguments are known now. */
  begin(index: number, toolName: string, step: number | undefined, argsHash: string | undefined): void {
    const call: TimelineCall = {
      index,
      ...(step !== undefined ? { step } : {}),
      toolName,
      outcome: 'pending',
      events: [],
    };
    if (this.anchored) {
      if (this.kept.length < this.limit) this.keep(call);
    } else {
      if (this.kept.length >= this.head + this.leadIn) {
        const [oldest] = this.kept.splice(this.head, 1);
        this.byIndex.delete(oldest.index);
      }
      this.keep(call);
    }
    if (argsHash !== undefined) this.argsKnown(index, argsHash);
  }

  /** The arguments of call `index` are known (at its start, or at its end for a call judged then). */
  argsKnown(index: number, argsHash: string): void {
    const call = this.byIndex.get(index);
    if (call?.argsHash !== undefined) return;
    if (call) call.argsHash = argsHash;
    const seen = this.seenArgs.get(argsHash);
    if (seen) {
      seen.count += 1;
      if (call) [call.repeatOf, call.occurrence] = [seen.first, seen.count];
    } else this.seenArgs.set(argsHash, { first: index, count: 1 });
    this.recent.push({ index, argsHash });
    if (this.recent.length > 2 * MAX_CYCLE_PERIOD) this.recent.shift();
    this.markCycle();
  }

  /** Call `index` ended with `outcome` (recorded unless the call was blocked before it ran). */
  ended(index: number, outcome: OutcomeHash): void {
    const call = this.byIndex.get(index);
    if (!call || call.outcome === 'vetoed') return;
    if (outcome.resultHash === undefined) {
      call.outcome = 'none';
      return;
    }
    call.outcome = 'result';
    call.resultHash = outcome.resultHash;
    if (call.argsHash === undefined) return;
    const key = `${call.argsHash}\u0000${outcome.resultHash}`;
    const first = this.seenOutcomes.get(key);
    if (first === undefined) this.seenOutcomes.set(key, index);
    else call.sameOutcomeAs = first;
  }

  /**
   * An event on call `index`. With the loop's member calls (`members`, their `argsHash`), the
   * stretch of consecutive member calls that ends at this call is marked as that loop.
   */
  event(index: number, event: ReplayEvent, judged: 'start' | 'end' | undefined, members?: readonly string[]): void {
    if (event.action !== 'arm') this.anchored = true;
    const call = this.byIndex.get(index);
    if (!call) return;
    call.events.push(event);
    if (judged !== undefined) call.judged = judged;
    // A call blocked before it ran is recorded as a loop veto: its outcome never is.
    if (event.action === 'block' && judged === 'start') call.outcome = 'vetoed';
    if (!members || members.length === 0) return;
    const inLoop = new Set(members);
    const at = this.kept.indexOf(call);
    for (let i = at; i >= 0; i -= 1) {
      const member = this.kept[i];
      if (member.argsHash === undefined || !inLoop.has(member.argsHash)) break;
      member.loopOf ??= index;
      if (i > 0 && this.kept[i - 1].index !== member.index - 1) break;
    }
  }

  /** The calls kept, in index order. */
  view(): RunTimelineView {
    return { calls: this.kept, limit: this.limit };
  }

  private keep(call: TimelineCall): void {
    this.kept.push(call);
    this.byIndex.set(call.index, call);
  }

  /** Marks the latest `2 × period` calls when they are one sequence of distinct calls twice over. */
  private markCycle(): void {
    const recent = this.recent;
    for (let period = MIN_CYCLE_PERIOD; period <= MAX_CYCLE_PERIOD; period += 1) {
      if (recent.length < 2 * period) return;
      const last = recent.length - 1;
      let repeated = true;
      for (let k = 0; k < period && repeated; k += 1)
        repeated = recent[last - k].argsHash === recent[last - k - period].argsHash;
      if (!repeated) continue;
      // A streak of one call repeated is a repeat, not a cycle.
      const distinct = new Set(recent.slice(last - period + 1).map((entry) => entry.argsHash));
      if (distinct.size < 2) continue;
      for (let k = 0; k < 2 * period; k += 1) {
        const call = this.byIndex.get(recent[last - k].index);
        if (call) call.cyclePeriod ??= period;
      }
      return;
    }
  }
}
