import { setBounded } from '../util/bounded-map.js';

/** Limits of the live-run registry. */
export interface RunRegistryLimits {
  /** Idle time after which a run's state is released, in ms. */
  readonly idleTtlMs: number;
  /** Most runs kept at once; the least recently active is evicted first. */
  readonly maxLiveRuns: number;
}

/** Why a run's state was released. */
export type RunReleaseReason = 'root-ended' | 'idle' | 'capacity' | 'shutdown';

/**
 * Live run states keyed by run key, in least-recently-active order (a `Map` re-inserted on
 * each touch), released by root end, idle TTL and capacity. The TTL sweep is lazy: it runs
 * on activity at most once per `idleTtlMs / 4`, so an idle process holds no timer.
 */
export class RunRegistry<T> {
  private readonly runs = new Map<string, { state: T; lastActive: number }>();
  private lastSweep = 0;
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

  /** The run's state, created with `create` when absent; marks the run active. */
  touch(key: string, create: () => T): T {
    const now = this.now();
    this.sweep(now);
    const entry = this.runs.get(key);
    if (entry) {
      this.runs.delete(key);
      entry.lastActive = now;
      this.runs.set(key, entry);
      return entry.state;
    }
    const state = create();
    this.runs.set(key, { state, lastActive: now });
    while (this.runs.size > this.limits.maxLiveRuns) {
      const oldest = this.runs.keys().next().value as string;
      this.release(oldest, 'capacity');
    }
    return state;
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
    this.onRelease(key, entry.state, reason);
  }

  /** Releases every run. */
  clear(reason: RunReleaseReason): void {
    for (const key of [...this.runs.keys()]) this.release(key, reason);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.limits.idleTtlMs / 4) return;
    this.lastSweep = now;
    for (const [key, entry] of this.runs) {
      if (now - entry.lastActive < this.limits.idleTtlMs) break;
      this.release(key, 'idle');
    }
  }
}
