import type { OutcomeFacts, OutcomeHash } from '../types.js';

/** What a deferred outcome counts against while it holds its raw content (a `DeferredOutcomeBudget`). */
interface ContentBudget {
  /** The outcome stopped holding `bytes` of raw content. */
  release(bytes: number): void;
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
 * span) until then, against the `DeferredOutcomeBudget` it was admitted to. Reading
 * `resultHash` computes it.
 */
export class DeferredOutcome implements OutcomeHash {
  /** Until it is hashed or dropped. */
  private content: DeferredContent | undefined;
  private hashed: OutcomeHash | undefined = undefined;
  /** The budget it counts against while it holds its raw content there. */
  private budget: ContentBudget | undefined = undefined;

  /** Once kept: its facts (a `write`'s mutation target, or none), known without hashing. */
  private keptFacts: OutcomeFacts | undefined = undefined;
  private kept = false;
  /** Whether the content was asked {@link DeferredContent.mayKeep}: the answer stands. */
  private asked = false;

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

  /** Once kept: the facts its outcome will have, known without hashing it (a `write`'s kind and target, or none). */
  get facts(): OutcomeFacts | undefined {
    return this.keptFacts;
  }

  get outcomeKind(): 'write-mutation' | undefined {
    return this.keptFacts === undefined ? undefined : 'write-mutation';
  }

  /** A kept `write`'s target hash. */
  get mutationTargetHash(): string | undefined {
    return this.keptFacts?.mutationTargetHash;
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
    const { mutationTargetHash } = facts;
    if (mutationTargetHash !== undefined) this.keptFacts = { outcomeKind: 'write-mutation', mutationTargetHash };
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

  /** Counts against `budget` from now on (see `DeferredOutcomeBudget.admit`). */
  countAgainst(budget: ContentBudget): void {
    this.budget = budget;
  }

  /**
   * Stops counting against its budget, keeping what it holds (its run was released: the
   * outcome is hashed only if the run's history is still read).
   */
  uncount(): void {
    const { budget } = this;
    if (budget === undefined) return;
    this.budget = undefined;
    budget.release(this.bytes);
  }
}
