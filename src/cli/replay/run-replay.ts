import type { GuardAbort } from '../../engine/loop-run.js';
import type { RecoveryCounts } from '../../engine/recovery/recovery-watch.js';
import type { ToolCallSignature } from '../../engine/types.js';
import type { CallVerdict, SpanStarted } from '../../spans/span-guard.js';
import type { ReplayEvent } from './replay-event.js';
import type { RunTimeline } from './run-timeline.js';

/** Per-run counters. */
export interface RunCounters {
  calls: number;
  warnings: number;
  suppressedWarnings: number;
  blocks: number;
  aborts: number;
  arms: number;
  firstBlock?: number;
  firstBlockStep?: number;
  firstAbort?: number;
}

/** Counters of a run that saw no call. */
export function emptyCounters(): RunCounters {
  return { calls: 0, warnings: 0, suppressedWarnings: 0, blocks: 0, aborts: 0, arms: 0 };
}

/**
 * The report of one replayed run: it counts what the span guard decided (the same decisions
 * the processor turns into span events live) and, unless `keepEvents` is off (sweeps), lists
 * the emitted ones.
 */
export class RunReplay {
  readonly counters: RunCounters = emptyCounters();
  readonly events: ReplayEvent[] = [];
  /** How the run's surfaced verdicts turned out, once it was released (with recovery tracking on). */
  recovery: RecoveryCounts | undefined = undefined;
  /**
   * How often the run's state was released before its end, for lack of room (`maxLiveRuns`) or
   * for idleness, as the processor would have released it: its history was dropped each time.
   */
  evictions = 0;

  /**
   * @param keepEvents list the emitted events (off for sweeps: counters only)
   * @param timeline the per-call record the HTML report draws, when it is asked for
   */
  constructor(
    private readonly keepEvents: boolean,
    readonly timeline?: RunTimeline,
  ) {}

  /** Numbers a new call of this run (at its span start, so late-judged calls keep their place). */
  nextIndex(): number {
    this.counters.calls += 1;
    return this.counters.calls;
  }

  /** Counts a verdict on call `index` (`call`: the call judged). */
  verdict(
    { check, phase }: CallVerdict,
    call: ToolCallSignature | undefined,
    toolName: string,
    index: number,
    step: number | undefined,
  ): void {
    const { verdict } = check;
    if (check.blocked) {
      this.counters.blocks += 1;
      if (this.counters.firstBlock === undefined) {
        this.counters.firstBlock = index;
        this.counters.firstBlockStep = step;
      }
    } else if (check.emit) this.counters.warnings += 1;
    else this.counters.suppressedWarnings += 1;
    if (!check.emit || !this.keepEvents) return;
    const event: ReplayEvent = {
      call: index,
      ...(step !== undefined ? { step } : {}),
      phase,
      action: check.blocked ? 'block' : 'warn',
      level: verdict.level,
      detector: verdict.detector,
      count: verdict.count,
      toolName,
      message: verdict.message,
      warningKey: verdict.warningKey,
      ...(verdict.pairedToolName !== undefined ? { pairedToolName: verdict.pairedToolName } : {}),
      ...(verdict.period !== undefined ? { period: verdict.period } : {}),
      ...(verdict.loopSignatures !== undefined ? { loopSignatures: verdict.loopSignatures } : {}),
      ...(check.wastedTokens !== undefined ? { wastedTokens: check.wastedTokens } : {}),
      ...(check.wastedMs !== undefined ? { wastedMs: check.wastedMs } : {}),
    };
    this.events.push(event);
    if (!this.timeline) return;
    // The calls of the loop a block stopped are marked on the timeline (warnings would mark most of a looping run).
    const members = !check.blocked
      ? undefined
      : (verdict.loopSignatures ??
        (call
          ? [call.argsHash, ...(verdict.pairedSignature !== undefined ? [verdict.pairedSignature] : [])]
          : undefined));
    this.timeline.event(index, event, phase, members);
  }

  /** Counts a post-compaction abort on call `index`. */
  abort(verdict: GuardAbort, index: number, step: number | undefined): void {
    this.counters.aborts += 1;
    this.counters.firstAbort ??= index;
    if (!this.keepEvents) return;
    const event: ReplayEvent = {
      call: index,
      ...(step !== undefined ? { step } : {}),
      phase: 'end',
      action: 'abort',
      level: 'critical',
      detector: verdict.detector,
      count: verdict.count,
      toolName: verdict.toolName,
      message: verdict.message,
    };
    this.events.push(event);
    this.timeline?.event(index, event, undefined);
  }

  /** The run was released: how its surfaced verdicts turned out. */
  recovered(counts: RecoveryCounts): void {
    // A run released and resumed (idle, capacity) is released again: its instances add up.
    const before = this.recovery;
    this.recovery = before
      ? {
          recovered: before.recovered + counts.recovered,
          repeated: before.repeated + counts.repeated,
          runEnded: before.runEnded + counts.runEnded,
        }
      : counts;
  }

  /** Counts a compaction retry that armed the guard. */
  armed(armed: NonNullable<SpanStarted<unknown>['armed']>): void {
    this.counters.arms += 1;
    if (!this.keepEvents) return;
    this.events.push({
      call: this.counters.calls,
      phase: 'start',
      action: 'arm',
      level: 'warning',
      detector: 'compaction_loop_persisted',
      count: 0,
      toolName: '',
      message: armed.message,
    });
  }
}
