import { createContextKey, type Context } from '@opentelemetry/api';

/** What a critical verdict does to the run: its one recovery turn, or the end of the run. */
export type CriticalStage = 'recovery' | 'terminate';

const RUN_RECOVERY = createContextKey('tool-loop-guard run recovery');

/**
 * One run's critical budget (OpenClaw's one-shot recovery): the first critical verdict of the
 * run gives the model one recovery turn; the next one ends the run by aborting its controller.
 * Held by `traceRun` in the run's context, so it lasts as long as the run (a new `traceRun` is
 * a new prompt with a fresh budget).
 */
export class RunRecovery {
  private criticals = 0;
  private ended = false;

  constructor(
    private readonly controller: AbortController,
    /** `false`: every critical is a recovery turn and the run is never ended by one. */
    private readonly endOnSecondCritical: boolean,
  ) {}

  /** Whether a second critical ended the run. */
  get terminated(): boolean {
    return this.ended;
  }

  /** Counts a critical verdict: `recovery` for the first (or for every one when ending is off), then `terminate`. */
  critical(): CriticalStage {
    this.criticals += 1;
    return this.criticals > 1 && this.endOnSecondCritical ? 'terminate' : 'recovery';
  }

  /** Ends the run: aborts its signal with `reason` (the first reason stands). */
  terminate(reason: Error): void {
    this.ended = true;
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** `parent` with this run's recovery in it. */
  static bind(parent: Context, recovery: RunRecovery): Context {
    return parent.setValue(RUN_RECOVERY, recovery);
  }

  /** The recovery of the run whose context `active` is in, if any. */
  static of(active: Context): RunRecovery | undefined {
    const value = active.getValue(RUN_RECOVERY);
    return value instanceof RunRecovery ? value : undefined;
  }
}
