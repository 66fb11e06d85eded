import type { LoopLevel, LoopDetectorName } from '../types.js';

/**
 * What a run did after a surfaced warning or block: its next calls left the loop (`recovered`),
 * one of them was a member of the loop again (`repeated`), or the run ended first (`run_ended`).
 */
export type RecoveryOutcome = 'recovered' | 'repeated' | 'run_ended';

/** How often each outcome happened in one run. */
export interface RecoveryCounts {
  readonly recovered: number;
  readonly repeated: number;
  readonly runEnded: number;
}

/** An outcome, with the verdict it followed. */
export interface RecoveryResolution {
  readonly outcome: RecoveryOutcome;
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  /** The tool of the call the verdict was on. */
  readonly toolName: string;
}

interface Watched {
  readonly signatures: ReadonlySet<string>;
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  readonly toolName: string;
  remaining: number;
}

/**
 * One run's recovery tracking: after each surfaced verdict it watches the next `window` calls.
 * A call with one of the loop's signatures settles it as `repeated`; `window` calls without one
 * as `recovered`; the run's end before either as `run_ended`. A new verdict while one is watched
 * settles that one as `recovered` (the run left that loop, if only for another).
 */
export class RecoveryWatch {
  private watched: Watched | undefined = undefined;
  private recovered = 0;
  private repeated = 0;
  private runEnded = 0;

  constructor(private readonly window: number) {}

  get counts(): RecoveryCounts {
    return { recovered: this.recovered, repeated: this.repeated, runEnded: this.runEnded };
  }

  /** Starts watching after a surfaced verdict; returns the watch it replaced, settled. */
  watch(
    signatures: readonly string[],
    level: LoopLevel,
    detector: LoopDetectorName,
    toolName: string,
  ): RecoveryResolution | undefined {
    const replaced = this.watched && this.settle('recovered');
    this.watched = { signatures: new Set(signatures), level, detector, toolName, remaining: this.window };
    return replaced;
  }

  /** The run makes a call (before it is judged); returns the watch it settled. */
  observe(argsHash: string): RecoveryResolution | undefined {
    const watched = this.watched;
    if (!watched) return undefined;
    if (watched.signatures.has(argsHash)) return this.settle('repeated');
    watched.remaining -= 1;
    return watched.remaining <= 0 ? this.settle('recovered') : undefined;
  }

  /** The run ended; returns the watch that was still open, settled. */
  end(): RecoveryResolution | undefined {
    return this.watched && this.settle('run_ended');
  }

  private settle(outcome: RecoveryOutcome): RecoveryResolution {
    const { level, detector, toolName } = this.watched!;
    this.watched = undefined;
    if (outcome === 'recovered') this.recovered += 1;
    else if (outcome === 'repeated') this.repeated += 1;
    else this.runEnded += 1;
    return { outcome, level, detector, toolName };
  }
}
