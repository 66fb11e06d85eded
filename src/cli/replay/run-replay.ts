import type { ResolvedLoopDetectionConfig } from '../../config/types.js';
import type { EngineLogger } from '../../util/logger.js';
import type { LoopCheck } from '../../engine/loop-session.js';
import { LoopRun } from '../../engine/loop-run.js';
import type { OutcomeHash } from '../../engine/hashing/outcome-hash.js';
import type { ToolCallSignature } from '../../engine/types.js';
import type { CallIdentity } from '../../spans/span-reading.js';

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
}

/** A call between its verdict and its outcome. */
export interface CallHandle {
  readonly call: ToolCallSignature;
  readonly toolCallId?: string;
  readonly config: ResolvedLoopDetectionConfig;
  readonly index: number;
  readonly step?: number;
  readonly check: LoopCheck;
  /** A critical verdict before the call ran: it would not have run, and has no outcome. */
  readonly vetoed: boolean;
}

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

export interface RunReplayOptions {
  logger?: EngineLogger;
  /** Clock of the session's records (replay time for traces). */
  now?: () => number;
  /** Keep the event list (off for sweeps: counters only). Default true. */
  keepEvents?: boolean;
}

/**
 * One run replayed offline: the engine's {@link LoopRun} — the same class the span processor
 * drives — plus the counters and event list of a report. Calls are judged at span start when
 * arguments are known then, else at their end.
 *
 * A call blocked at its start is counted and its outcome is not recorded: live, it would not
 * have run (the veto result carries no hash), so the block stays in force for identical calls.
 * A call judged only at its end had already run: it is recorded with its outcome, whatever
 * the verdict (as in the processor).
 */
export class RunReplay {
  private readonly loop: LoopRun;
  readonly counters: RunCounters = { calls: 0, warnings: 0, suppressedWarnings: 0, blocks: 0, aborts: 0, arms: 0 };
  readonly events: ReplayEvent[] = [];
  private readonly keepEvents: boolean;

  constructor(
    readonly runKey: string,
    options: RunReplayOptions = {},
  ) {
    this.loop = new LoopRun({ logger: options.logger, now: options.now });
    this.keepEvents = options.keepEvents ?? true;
  }

  /** Numbers a new call of this run (at its span start, so late-judged calls keep their place). */
  nextIndex(): number {
    this.counters.calls += 1;
    return this.counters.calls;
  }

  /** Checks a call and records it unless it was blocked at its start (the processor's `evaluate`). */
  judge(
    identity: CallIdentity,
    config: ResolvedLoopDetectionConfig,
    meta: { index: number; step?: number; toolCallId?: string; phase: 'start' | 'end' },
  ): CallHandle {
    const call: ToolCallSignature = { toolName: identity.toolName, argsHash: identity.argsHash, knownPoll: identity.knownPoll, runId: this.runKey };
    const check = this.loop.judge(call, meta.toolCallId, config, meta.phase === 'end');
    const { verdict } = check;
    if (verdict) {
      if (check.blocked) {
        this.counters.blocks += 1;
        if (this.counters.firstBlock === undefined) {
          this.counters.firstBlock = meta.index;
          this.counters.firstBlockStep = meta.step;
        }
      } else if (check.emit) this.counters.warnings += 1;
      else this.counters.suppressedWarnings += 1;
      if (check.emit && this.keepEvents) {
        this.events.push({
          call: meta.index,
          ...(meta.step !== undefined ? { step: meta.step } : {}),
          phase: meta.phase,
          action: check.blocked ? 'block' : 'warn',
          level: verdict.level,
          detector: verdict.detector,
          count: verdict.count,
          toolName: call.toolName,
          message: verdict.message,
          warningKey: verdict.warningKey,
          ...(verdict.pairedToolName !== undefined ? { pairedToolName: verdict.pairedToolName } : {}),
        });
      }
    }
    return { call, toolCallId: meta.toolCallId, config, index: meta.index, step: meta.step, check, vetoed: check.blocked && meta.phase === 'start' };
  }

  /**
   * Records a judged call's outcome (skipped for a call blocked at its start and for "no outcome") and
   * lets the post-compaction guard observe it; a guard abort is counted and listed.
   */
  complete(handle: CallHandle, outcome: OutcomeHash): void {
    if (handle.vetoed) return;
    const verdict = this.loop.complete(handle.call, handle.toolCallId, outcome, handle.config);
    if (!verdict) return;
    this.counters.aborts += 1;
    this.counters.firstAbort ??= handle.index;
    if (this.keepEvents) {
      this.events.push({
        call: handle.index,
        ...(handle.step !== undefined ? { step: handle.step } : {}),
        phase: 'end',
        action: 'abort',
        level: 'critical',
        detector: verdict.detector,
        count: verdict.count,
        toolName: verdict.toolName,
        message: verdict.message,
      });
    }
  }

  /** A compaction-retry: (re-)arms the post-compaction guard. */
  arm(config: ResolvedLoopDetectionConfig): void {
    const guard = this.loop.arm(config);
    if (!guard.enabled) return;
    this.counters.arms += 1;
    if (this.keepEvents) {
      this.events.push({
        call: this.counters.calls,
        phase: 'start',
        action: 'arm',
        level: 'warning',
        detector: 'compaction_loop_persisted',
        count: 0,
        toolName: '',
        message: `post-compaction guard armed for ${guard.windowSize} attempts`,
      });
    }
  }
}
