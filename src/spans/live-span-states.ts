/** Live spans whose states sit in the array; a span beyond them moves the oldest to the `WeakMap`. */
const RECENT_SPANS = 8;

/**
 * States of live spans, keyed by the span object. The newest {@link RECENT_SPANS} sit in a small
 * array, found by comparing references; older ones in a `WeakMap`. A tool call's span is live
 * for the call's duration and a run has a handful of calls in flight at most, so a span's state
 * is almost always set, read and deleted in the array: no `WeakMap` entry, whose first insert
 * makes V8 give the span an identity hash in its runtime, and whose table the collector visits
 * as ephemerons at every scavenge. A span that never ends is held strongly only until that many
 * newer ones start; then it moves to the `WeakMap`, which lets it go with the span.
 */
export class LiveSpanStates<V> {
  private readonly spans: (object | undefined)[] = new Array<object | undefined>(RECENT_SPANS).fill(undefined);
  private readonly states: (V | undefined)[] = new Array<V | undefined>(RECENT_SPANS).fill(undefined);
  /** Entries in the array, in the order they were set: `spans[0]` is the oldest. */
  private recent = 0;
  private readonly older = new WeakMap<object, V>();
  /** Entries set in {@link older} and not yet deleted (at least as many as it holds). */
  private olderCount = 0;

  /** @param onOlder - Told of each span whose state moves from the array to the `WeakMap`. Default: none. */
  constructor(private readonly onOlder?: (span: object, state: V) => void) {}

  /** At least as many states as are held: while it is 0, no span has one and a lookup can be skipped. */
  get size(): number {
    return this.recent + this.olderCount;
  }

  get(span: object): V | undefined {
    const at = this.indexOf(span);
    if (at >= 0) return this.states[at];
    return this.olderCount > 0 ? this.older.get(span) : undefined;
  }

  set(span: object, state: V): void {
    const at = this.indexOf(span);
    if (at >= 0) {
      this.states[at] = state;
      return;
    }
    if (this.olderCount > 0 && this.older.has(span)) {
      this.older.set(span, state);
      return;
    }
    const full = this.recent === RECENT_SPANS;
    const oldest = this.spans[0];
    const oldestState = this.states[0];
    if (full) {
      this.older.set(oldest!, oldestState!);
      this.olderCount += 1;
      this.removeAt(0);
    }
    this.spans[this.recent] = span;
    this.states[this.recent] = state;
    this.recent += 1;
    // Told once both states are in place: a listener that throws loses neither.
    if (full) this.onOlder?.(oldest!, oldestState!);
  }

  /** Drops a span's state; whether it had one. */
  delete(span: object): boolean {
    const at = this.indexOf(span);
    if (at >= 0) {
      this.removeAt(at);
      return true;
    }
    if (this.olderCount === 0 || !this.older.delete(span)) return false;
    this.olderCount -= 1;
    return true;
  }

  /** The newest state in the array (not the `WeakMap`) that `test` accepts, asked with each span and its state. */
  findRecent(test: (span: object, state: V) => boolean): V | undefined {
    for (let i = this.recent - 1; i >= 0; i -= 1) if (test(this.spans[i]!, this.states[i]!)) return this.states[i];
    return undefined;
  }

  /** Newest first: the span ending is most often the one that started last. */
  private indexOf(span: object): number {
    for (let i = this.recent - 1; i >= 0; i -= 1) if (this.spans[i] === span) return i;
    return -1;
  }

  private removeAt(at: number): void {
    const last = this.recent - 1;
    for (let i = at; i < last; i += 1) {
      this.spans[i] = this.spans[i + 1];
      this.states[i] = this.states[i + 1];
    }
    this.spans[last] = undefined;
    this.states[last] = undefined;
    this.recent = last;
  }
}
