/** What a replayed verdict did. `arm` marks a compaction-retry that armed the guard. */
export type ReplayAction = 'warn' | 'block' | 'abort' | 'arm';

/** One emitted loop event of a replayed run (suppressed warnings are not events, as live). */
export interface ReplayEvent {
  /** 1-based index of the call in its run (for `arm`: the number of calls before it). */
  readonly call: number;
  /** The recorded step number, when the input has one (trajectories). */
  readonly step?: number;
  /** Whether the call was judged at span start (before execution) or at its end. */
  readonly phase: 'start' | 'end';
  readonly action: ReplayAction;
  readonly level: 'warning' | 'critical';
  readonly detector: string;
  readonly count: number;
  readonly toolName: string;
  readonly message: string;
  readonly warningKey?: string;
  readonly pairedToolName?: string;
  /** For a cycle of calls: its period (the number of distinct calls in it). */
  readonly period?: number;
  /** The `argsHash` of the loop's member calls, oldest first, when the detector names them. */
  readonly loopSignatures?: readonly string[];
  /** Tokens the run's model calls reported inside the loop, when any did. */
  readonly wastedTokens?: number;
  /** Recorded time from the loop's first member call to this call, in ms. */
  readonly wastedMs?: number;
}
