import type { DeferredOutcome } from './deferred-outcome.js';

/** Where an admitted outcome waits: a run's log, which stores its hash once the budget has it hashed. */
export interface DeferredOutcomeHolder {
  /** Record `seq` is to hash `outcome` now and keep the hash alone (a no-op if it no longer holds it). */
  settleDeferred(seq: number, outcome: DeferredOutcome): void;
}

/**
 * How many deferred outcomes the runs of a set (a processor's) may hold unhashed, and how many
 * bytes of raw content: admitting one beyond either limit has the oldest ones still held hashed
 * by the records that hold them, until the rest fit.
 */
export class DeferredOutcomeBudget {
  private held = 0;
  private count = 0;
  /**
   * Admitted outcomes, oldest first from `head`, with the log and record that hold each; some
   * no longer count (read, dropped or released), and are compacted away now and then.
   */
  private outcomes: (DeferredOutcome | undefined)[] = [];
  private holders: (DeferredOutcomeHolder | undefined)[] = [];
  private seqs: number[] = [];
  private head = 0;

  /**
   * `limit`: bytes of raw content held at most (0: every outcome is hashed as it is admitted);
   * `maxOutcomes`: outcomes held at most (default: no limit but the bytes'), which bounds what
   * their objects take besides the texts, most of what a small result's deferral holds.
   */
  constructor(
    readonly limit: number,
    readonly maxOutcomes = Number.POSITIVE_INFINITY,
  ) {}

  /** Bytes of raw content the outcomes counting against it hold now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Outcomes counting against it now. */
  get heldOutcomes(): number {
    return this.count;
  }

  /**
   * Counts an outcome that record `seq` of `holder` holds now; has the oldest ones hashed while
   * over the limit.
   */
  admit(outcome: DeferredOutcome, holder: DeferredOutcomeHolder, seq: number): void {
    outcome.countAgainst(this);
    this.held += outcome.bytes;
    this.count += 1;
    this.outcomes.push(outcome);
    this.holders.push(holder);
    this.seqs.push(seq);
    while ((this.held > this.limit || this.count > this.maxOutcomes) && this.head < this.outcomes.length) {
      const i = this.head;
      const oldest = this.outcomes[i];
      const oldestHolder = this.holders[i];
      this.outcomes[i] = undefined;
      this.holders[i] = undefined;
      this.head += 1;
      if (oldest?.counted) {
        oldestHolder!.settleDeferred(this.seqs[i], oldest);
        // Hashed whether its record still held it or not.
        oldest.resolve();
      }
    }
    // Entries that stopped counting stay queued until they reach the head: compact now and then,
    // so that a released run's log is not kept for long by its stale entries.
    const queued = this.outcomes.length - this.head;
    if (queued > this.count + 32 || (this.head >= 32 && this.head * 2 >= this.outcomes.length)) this.compact();
  }

  /** An outcome stopped counting (see {@link DeferredOutcome.uncount}). */
  release(bytes: number): void {
    this.held -= bytes;
    this.count -= 1;
  }

  private compact(): void {
    const outcomes: DeferredOutcome[] = [];
    const holders: DeferredOutcomeHolder[] = [];
    const seqs: number[] = [];
    for (let i = this.head; i < this.outcomes.length; i += 1) {
      const outcome = this.outcomes[i];
      if (!outcome?.counted) continue;
      outcomes.push(outcome);
      holders.push(this.holders[i]!);
      seqs.push(this.seqs[i]);
    }
    this.outcomes = outcomes;
    this.holders = holders;
    this.seqs = seqs;
    this.head = 0;
  }
}
