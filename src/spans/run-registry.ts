import { setBounded } from '../util/bounded-map.js';

/** Limits of the live-run registry. */
export interface RunRegistryLimits {
  /**
   * Idle time after which a run's state is released, in ms. A run {@link RunRegistry.hold held}
   * by a call in flight is never idle: its idle time starts when the last hold is let go.
   */
  readonly idleTtlMs: number;
  /** Most runs kept at once; the least recently active is evicted first. */
  readonly maxLiveRuns: number;
}

/** Elapsed time (ms) after which the registry's times are rebased to stay small integers. */
const REBASE_AFTER = 2 ** 30;

/** Why a run's state was released. */
export type RunReleaseReason = 'root-ended' | 'idle' | 'capacity' | 'shutdown';

/** A run held by a call in flight (see {@link RunRegistry.hold}). */
export interface HeldRun<T> {
  readonly state: T;
}

/** A live run in the registry's recency list (least recently active first). */
interface RunEntry<T> extends HeldRun<T> {
  readonly key: string;
  /** Calls in flight holding the run; -1 once it is released. */
  holds: number;
  /** When the run was last active, on the registry's {@link RunRegistry.elapsed} scale. */
  lastActive: number;
  older: RunEntry<T> | undefined;
  newer: RunEntry<T> | undefined;
}

/**
 * Live run states keyed by run key, in least-recently-active order, released by root end, idle
 * TTL and capacity. The order is a linked list through the entries: a touch moves its run to
 * the newest end with a few pointer writes (nothing at all when the run is already the newest,
 * as it is for every call of a run after the first), where re-inserting into the `Map` would
 * rehash the key twice and leave a deleted slot per touch. The TTL sweep is lazy: it runs on
 * activity at most once per `idleTtlMs / 4`, so an idle process holds no timer. A run held by a
 * call in flight ({@link hold}) is passed over by the sweep: however long a tool runs, its run
 * is not idle until the call ends ({@link letGo}).
 */
export class RunRegistry<T> {
  private readonly runs = new Map<string, RunEntry<T>>();
  private oldest: RunEntry<T> | undefined = undefined;
  private newest: RunEntry<T> | undefined = undefined;
  private lastSweep = 0;
  /** The first clock reading: times are kept minus it (see {@link elapsed}). */
  private epoch: number | undefined = undefined;
  /** Open root spans per run key (a run may be opened by several root spans). */
  private readonly openRoots = new Map<string, number>();

  constructor(
    private readonly limits: RunRegistryLimits,
    private readonly now: () => number,
    private readonly onRelease: (key: string, state: T, reason: RunReleaseReason) => void,
  ) {}

  /** Live runs. */
  get size(): number {
    return this.runs.size;
  }

  /** The run's state without touching it. */
  peek(key: string): T | undefined {
    return this.runs.get(key)?.state;
  }

  /**
   * The run's state, created with `create` when absent; marks the run active. `reading`: the
   * clock's reading now, when the caller has just taken one (default: the clock is read).
   */
  touch(key: string, create: () => T, reading = this.now()): T {
    const now = this.elapsed(reading);
    this.sweep(now);
    const newest = this.newest;
    if (newest !== undefined && newest.key === key) {
      newest.lastActive = now;
      return newest.state;
    }
    const entry = this.runs.get(key);
    if (entry) {
      entry.lastActive = now;
      this.unlink(entry);
      this.append(entry);
      return entry.state;
    }
    const state = create();
    const created: RunEntry<T> = { key, state, holds: 0, lastActive: now, older: undefined, newer: undefined };
    this.runs.set(key, created);
    this.append(created);
    while (this.runs.size > this.limits.maxLiveRuns && this.oldest !== undefined)
      this.release(this.oldest.key, 'capacity');
    return state;
  }

  /**
   * {@link touch}, and holds the run until {@link letGo}: a call in flight (a tool span between
   * its start and its end) keeps its run from being released as idle, however long it runs.
   * The run is still released when its root ends, and by the live-run cap. `reading`: as for {@link touch}.
   */
  hold(key: string, create: () => T, reading = this.now()): HeldRun<T> {
    this.touch(key, create, reading);
    // The touch made the run the newest.
    const entry = this.newest!;
    entry.holds += 1;
    return entry;
  }

  /**
   * The call holding the run ended: the run is active now, and idle from now once no call holds
   * it. Returns its state, or `undefined` when it was released meanwhile (its root ended, or the
   * live-run cap evicted it). No lookup by key: the hold is the run's entry. `reading`: as for
   * {@link touch}.
   */
  letGo(held: HeldRun<T>, reading = this.now()): T | undefined {
    const entry = held as RunEntry<T>;
    if (entry.holds < 0) return undefined;
    entry.holds -= 1;
    entry.lastActive = this.elapsed(reading);
    if (this.newest !== entry) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.state;
  }

  /** A span that opens the run started. */
  openRoot(key: string): void {
    // Roots that never end and never see a tool call must not accumulate.
    setBounded(this.openRoots, key, (this.openRoots.get(key) ?? 0) + 1, this.limits.maxLiveRuns);
  }

  /**
   * A span that opened the run ended. Returns true when it was the last open one: the run is
   * over and its state released (`root-ended`).
   */
  closeRoot(key: string): boolean {
    // Every trace's root span ends here: answer the common "nothing live" case without lookups.
    if (this.openRoots.size === 0 && this.runs.size === 0) return true;
    const open = this.openRoots.get(key);
    if (open !== undefined && open > 1) {
      this.openRoots.set(key, open - 1);
      return false;
    }
    if (open !== undefined) this.openRoots.delete(key);
    this.release(key, 'root-ended');
    return true;
  }

  /** Releases one run. */
  release(key: string, reason: RunReleaseReason): void {
    // An idle or evicted run's roots may never end: forget them with the run.
    if (reason !== 'root-ended') this.openRoots.delete(key);
    const entry = this.runs.get(key);
    if (!entry) return;
    this.runs.delete(key);
    this.unlink(entry);
    entry.holds = -1;
    this.onRelease(key, entry.state, reason);
  }

  /** Releases every run. */
  clear(reason: RunReleaseReason): void {
    // Least recently active first, as the capacity and idle releases go.
    const keys: string[] = [];
    for (let entry = this.oldest; entry !== undefined; entry = entry.newer) keys.push(entry.key);
    for (const key of keys) this.release(key, reason);
  }

  private append(entry: RunEntry<T>): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: RunEntry<T>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = undefined;
  }

  /**
   * A reading of the clock minus the first one: a small integer for a millisecond clock, which
   * an entry holds in place, where an absolute `Date.now()` would be a boxed number per run.
   * Past 2³⁰ ms (12 days) every time is rebased, so that they stay small.
   */
  private elapsed(reading: number): number {
    if (this.epoch === undefined) {
      this.epoch = reading;
      // The sweep's schedule stays where the clock's zero puts it.
      this.lastSweep = -reading;
    }
    const elapsed = reading - this.epoch;
    // `| 0` makes it a small integer in every V8 tier (a difference of two boxed numbers is boxed).
    if (elapsed < REBASE_AFTER) return (elapsed | 0) === elapsed ? elapsed | 0 : elapsed;
    for (let entry = this.oldest; entry !== undefined; entry = entry.newer) entry.lastActive -= elapsed;
    this.lastSweep -= elapsed;
    this.epoch = reading;
    return 0;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.limits.idleTtlMs / 4) return;
    this.lastSweep = now;
    for (let entry = this.oldest; entry !== undefined && now - entry.lastActive >= this.limits.idleTtlMs;) {
      const next = entry.newer;
      if (entry.holds === 0) this.release(entry.key, 'idle');
      entry = next;
    }
  }
}
