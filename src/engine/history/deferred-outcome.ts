import type { OutcomeHash } from '../types.js';

/**
 * Where a deferred outcome is held (a history scope's record): told when the budget hashes the
 * outcome, so that it stores the hash as any other and lets go of the outcome object.
 */
export interface DeferredOutcomeHolder {
  /** The outcome held for record `seq` is to be hashed now (a no-op if that record no longer holds it). */
  settleDeferred(seq: number, outcome: DeferredOutcome): void;
}

/** What a deferred outcome knows besides its hash, once it may stay unhashed. */
export interface KeptFacts {
  /** A `write`'s mutation target hash (from its params). */
  readonly mutationTargetHash?: string;
}

/** The content a {@link DeferredOutcome} defers: what its hash is computed from. */
export interface DeferredContent {
  /** The outcome, hashed now. Asked at most once; the content is let go afterwards. */
  hash(): OutcomeHash;
  /**
   * Whether nothing but the hash (and a `write`'s target, known from its params) can come of the
   * content, and that target; `false`: it must be hashed now. Asked at most once, when a run
   * would keep the outcome unhashed; it may let go of what only hashing now needed.
   */
  mayKeep(): KeptFacts | false;
}

/**
 * A successful outcome whose hash may be computed only when a reader first asks for it: most
 * calls are never repeated within the history window, so their results need never be parsed
 * and hashed. A run keeps it unhashed only once {@link keep} said yes: then its outcome, once
 * computed, carries no fact but the hash and, for a `write`, the mutation target given now (no
 * other outcome kind, typed error, unknown tool or no-progress flag), so the history answers
 * every question but the hash itself without computing it.
 *
 * It holds what computing the hash needs (the raw result text and the raw arguments, never a
 * span) until then, against the {@link DeferredOutcomeBudget} it was admitted to. Reading
 * `resultHash` computes it.
 */
export class DeferredOutcome implements OutcomeHash {
  /** Until it is hashed or dropped. */
  private content: DeferredContent | undefined;
  private hashed: OutcomeHash | undefined = undefined;
  /** The budget it counts against while it holds its raw content there. */
  private budget: DeferredOutcomeBudget | undefined = undefined;

  /** Once kept: the `write-mutation` kind, with {@link mutationTargetHash}. */
  private kind: 'write-mutation' | undefined = undefined;
  private target: string | undefined = undefined;
  private kept = false;
  /** Whether the content was asked {@link DeferredContent.mayKeep}: the answer stands. */
  private asked = false;
  /** The record that holds it, while one does. */
  private holder: DeferredOutcomeHolder | undefined = undefined;
  private seq = 0;

  /**
   * `bytes`: what `content` holds (the raw texts), counted against a budget. One object with
   * the content's fields, not two closures over them: a deferred outcome is made for most
   * successful calls, and lives as long as its record.
   */
  constructor(
    content: DeferredContent,
    readonly bytes: number,
  ) {
    this.content = content;
  }

  get outcomeKind(): 'write-mutation' | undefined {
    return this.kind;
  }

  /** A kept `write`'s target hash. */
  get mutationTargetHash(): string | undefined {
    return this.target;
  }

  /**
   * Whether it may stay unhashed (asked by a run about to keep it so; else it is resolved). The
   * answer does not change once given.
   */
  keep(): boolean {
    if (this.kept) return true;
    const facts = this.asked || this.content === undefined ? false : this.content.mayKeep();
    this.asked = true;
    if (facts === false) return false;
    this.kept = true;
    this.target = facts.mutationTargetHash;
    if (this.target !== undefined) this.kind = 'write-mutation';
    return true;
  }

  /** The outcome's hash (computed now if it was not yet). */
  get resultHash(): string | undefined {
    return this.resolve().resultHash;
  }

  /** Whether it still counts against a budget. */
  get counted(): boolean {
    return this.budget !== undefined;
  }

  /** Whether the hash was computed. */
  get resolved(): boolean {
    return this.hashed !== undefined;
  }

  /** The outcome, hashed now if it was not yet; its raw content is let go. */
  resolve(): OutcomeHash {
    if (this.hashed === undefined) {
      const { content } = this;
      if (content === undefined) throw new Error('a deferred outcome was read after its record left the history');
      this.content = undefined;
      this.uncount();
      const outcome = content.hash();
      // A kept outcome's run reads no near-duplicate evidence, and that evidence holds the text.
      if (this.kept) {
        const { similarity: _, ...facts } = outcome;
        this.hashed = facts;
      } else this.hashed = outcome;
    }
    return this.hashed;
  }

  /** Its record left the history unread: the raw content is let go, never hashed. */
  drop(): void {
    this.content = undefined;
    this.uncount();
  }

  /** Record `seq` of `holder` holds it from now on (see {@link settle}). */
  heldBy(holder: DeferredOutcomeHolder, seq: number): void {
    this.holder = holder;
    this.seq = seq;
  }

  /**
   * Hashes it now, through the record that holds it if one does, which then stores the hash as
   * any other: a resolved outcome left in its record would hold its objects for the record's life.
   */
  settle(): void {
    const { holder } = this;
    this.holder = undefined;
    holder?.settleDeferred(this.seq, this);
    this.resolve();
  }

  /** Counts against `budget` from now on (see {@link DeferredOutcomeBudget.admit}). */
  countAgainst(budget: DeferredOutcomeBudget): void {
    this.budget = budget;
  }

  /**
   * Stops counting against its budget, keeping what it holds (its run was released: the
   * outcome is hashed only if the run's history is still read).
   */
  uncount(): void {
    const { budget } = this;
    // Only the budget settles it through its record: a stale entry of its queue must not keep
    // that record's whole history alive.
    this.holder = undefined;
    if (budget === undefined) return;
    this.budget = undefined;
    budget.release(this.bytes);
  }
}

/**
 * How many deferred outcomes the runs of a set (a processor's) may hold unhashed, and how many
 * bytes of raw content: admitting one beyond either limit hashes the oldest ones still held,
 * until the rest fit.
 */
export class DeferredOutcomeBudget {
  private held = 0;
  private count = 0;
  /** Admitted outcomes, oldest first from `head`; some may no longer count (compacted away). */
  private queue: (DeferredOutcome | undefined)[] = [];
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

  /** Counts an outcome (its record is in a history now); hashes the oldest ones while over the limit. */
  admit(outcome: DeferredOutcome): void {
    outcome.countAgainst(this);
    this.held += outcome.bytes;
    this.count += 1;
    this.queue.push(outcome);
    const { queue } = this;
    while ((this.held > this.limit || this.count > this.maxOutcomes) && this.head < queue.length) {
      const oldest = queue[this.head];
      queue[this.head] = undefined;
      this.head += 1;
      if (oldest?.counted) oldest.settle();
    }
    // Outcomes read, dropped or uncounted stay queued until they reach the head: compact now and then.
    if (queue.length - this.head > 2 * this.count + 32 || (this.head >= 32 && this.head * 2 >= queue.length)) {
      const kept: DeferredOutcome[] = [];
      for (let i = this.head; i < queue.length; i += 1) {
        const entry = queue[i];
        if (entry?.counted) kept.push(entry);
      }
      this.queue = kept;
      this.head = 0;
    }
  }

  /** An outcome stopped counting (see {@link DeferredOutcome.uncount}). */
  release(bytes: number): void {
    this.held -= bytes;
    this.count -= 1;
  }
}
