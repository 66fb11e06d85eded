import type { ResolvedLoopDetectionConfig } from '../../engine/config.js';
import type { LoopBudget } from '../../engine/cost/loop-budget.js';
import type { RecoveryResolution } from '../../engine/recovery/recovery-watch.js';
import type { EngineLogger } from '../../util/logger.js';
import type { SpanScope } from '../../spans/run-scope.js';
import type { RunReleaseReason } from '../../spans/run-registry.js';
import { SpanGuard, type GuardedRun, type SpanStarted, type ToolSpanFinished } from '../../spans/span-guard.js';
import type { SpanReader } from '../../spans/span-reading.js';
import { silentLogger } from '../../util/logger.js';
import type { PreparedSpan } from './prepared-span.js';
import { RunReplay } from './run-replay.js';
import { RunTimeline } from './run-timeline.js';

/** A span of a recorded trace, already read and hashed (see `prepareSpan`). */
export interface ReplaySpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The recorded parent, local or in another process; absent for the trace's root span. */
  readonly parentSpanId?: string;
  /** Like the SDK's spans (run scopes look parents up by span id too). */
  spanContext(): { traceId: string; spanId: string };
  readonly prepared: PreparedSpan;
  /** Where the span was read from (file name), for reports. */
  readonly source?: string;
  /** The recorded step number of a trajectory call. */
  readonly step?: number;
}

/** One run instance seen during a replay. */
export interface ReplayedRun {
  readonly runKey: string;
  agentId?: string;
  readonly source?: string;
  readonly replay: RunReplay;
}

export interface SpanReplayerOptions {
  /** A run's settings, from its agent id. */
  readonly configFor: (agentId: string | undefined) => ResolvedLoopDetectionConfig;
  readonly logger?: EngineLogger;
  /** The processor's idle TTL and live-run cap, applied in replay time. */
  readonly runIdleTtlMs: number;
  readonly maxLiveRuns: number;
  /** Keep each run's event list (off for sweeps: counters only). Default true. */
  readonly keepEvents?: boolean;
  /**
   * Keep a per-call timeline of each run, of at most this many calls (for the HTML report;
   * needs `keepEvents`). Default: none.
   */
  readonly timelineCalls?: number;
  /**
   * Calls watched after each surfaced warning or block, as the processor's `recoveryWindow`:
   * did the run leave the loop, repeat it, or end? Default 0 (off).
   */
  readonly recoveryWindow?: number;
  /** Shadow mode: verdicts are reached and counted, but nothing is blocked (every call's outcome is recorded). Default false. */
  readonly shadow?: boolean;
  /**
   * Keep a report of every run ({@link SpanReplayer.runs}). Default true; off for a replay that
   * goes on for as long as spans come (`tool-loop-guard serve`), whose observer reports instead.
   */
  readonly keepRuns?: boolean;
  /** Sees what the span guard decided on each replayed span, as the processor's emitter does live. */
  readonly observer?: ReplayObserver;
  /** Each judged call keeps its span's ids, for the links of evidence spans (`LoopRun.memberRefs`). Default false. */
  readonly keepCallRefs?: boolean;
  /** Each run's loop budget, as the processor's `budgetTokens` / `budgetMs`. Default: none. */
  readonly budget?: LoopBudget;
}

/** What the span guard decided on the replayed spans, as it decided it (see {@link SpanReplayerOptions.observer}). */
export interface ReplayObserver {
  /** A span that concerns a run started (a tool call, a compaction retry, a run-scoped span). */
  started(span: ReplaySpan, started: SpanStarted<ReplaySpan>): void;
  /** A tool span ended. */
  finished(span: ReplaySpan, finished: ToolSpanFinished<ReplaySpan>): void;
  /** A run's state was released; `settled`: the recovery watch its end settled. */
  released(run: GuardedRun, reason: RunReleaseReason, settled: RecoveryResolution | undefined): void;
}

/** Prepared spans are read from what was hashed once. */
const PREPARED_READER: SpanReader<ReplaySpan> = {
  readStart: (span) => span.prepared,
  matchEnd: (span) => span.prepared.lateTool,
};

/**
 * Replays the span starts and ends of one process's recorded spans, in time order, through the
 * span guard the processor drives live — scopes, judging, recording, the post-compaction guard
 * and run releases in replay time — and only counts what the guard decides, per run instance.
 */
export class SpanReplayer {
  private readonly guard: SpanGuard<ReplaySpan>;
  private readonly replays = new WeakMap<GuardedRun, ReplayedRun>();
  /** The index of each tool span's call in its run, from its start to its end. */
  private readonly indexes = new WeakMap<ReplaySpan, number>();
  private readonly keepEvents: boolean;
  private readonly keepRuns: boolean;
  private readonly observer: ReplayObserver | undefined;
  private readonly timelineCalls: number | undefined;
  /** Every run, in order of creation (a run released early and resumed is one run). */
  readonly runs: ReplayedRun[] = [];
  /** Runs released early (idle, capacity) by run key: the replay a resumed run goes on with. */
  private readonly resumable = new Map<string, ReplayedRun>();
  private time = 0;

  constructor(options: SpanReplayerOptions) {
    this.keepEvents = options.keepEvents ?? true;
    this.keepRuns = options.keepRuns ?? true;
    this.observer = options.observer;
    this.timelineCalls = this.keepEvents ? options.timelineCalls : undefined;
    const keepCallRefs = options.keepCallRefs === true;
    this.guard = new SpanGuard<ReplaySpan>({
      reader: PREPARED_READER,
      configFor: options.configFor,
      logger: options.logger ?? silentLogger,
      clock: () => this.time,
      runIdleTtlMs: options.runIdleTtlMs,
      maxLiveRuns: options.maxLiveRuns,
      recoveryWindow: options.recoveryWindow ?? 0,
      shadow: options.shadow === true,
      ...(options.budget ? { budget: options.budget } : {}),
      onRelease: (run, reason, settled) => this.released(run, reason, settled),
      ...(keepCallRefs ? { keepCallRefs: () => true } : {}),
    });
  }

  /** Runs whose state is held now. */
  get liveRuns(): number {
    return this.guard.liveRuns;
  }

  /** A span starts at `timeMs`; `parent` is its parent span when that is local (same process). */
  start(span: ReplaySpan, parent: ReplaySpan | undefined, timeMs: number): void {
    this.time = timeMs;
    const started = this.guard.start(span, span, { parent });
    if (started) this.observer?.started(span, started);
    if (!started?.run || !this.keepRuns) return;
    const { replay } = this.replayOf(started.run, started.scope, span.source);
    if (started.armed) replay.armed(started.armed);
    if (!started.tool) return;
    const index = replay.nextIndex();
    this.indexes.set(span, index);
    replay.timeline?.begin(index, started.tool.toolName, span.step, started.call?.argsHash);
    if (started.verdict) replay.verdict(started.verdict, started.call, started.tool.toolName, index, span.step);
  }

  /** A span ends at `timeMs`. */
  end(span: ReplaySpan, timeMs: number): void {
    this.time = timeMs;
    const finished = this.guard.finish(span);
    // Prepared spans are tool spans or none (model-call spans are not replayed).
    if (finished && 'tool' in finished) {
      this.observer?.finished(span, finished);
      if (this.keepRuns) this.report(span, finished);
    } else if (span.prepared.modelTokens !== undefined) this.guard.spend(span, span.prepared.modelTokens);
    this.guard.close(span, span.parentSpanId === undefined ? span.traceId : undefined);
  }

  /** Counts what the guard decided as a tool span ended, in its run's report. */
  private report(span: ReplaySpan, finished: ToolSpanFinished<ReplaySpan>): void {
    const { replay } = this.replayOf(finished.run, finished.scope, span.source);
    const known = finished.matchedAtEnd ? undefined : this.indexes.get(span);
    const index = known ?? replay.nextIndex();
    this.indexes.delete(span);
    const timeline = replay.timeline;
    if (timeline) {
      if (known === undefined) timeline.begin(index, finished.tool.toolName, span.step, undefined);
      timeline.argsKnown(index, finished.call.argsHash);
    }
    if (finished.verdict) replay.verdict(finished.verdict, finished.call, finished.tool.toolName, index, span.step);
    if (finished.abort) replay.abort(finished.abort, index, span.step);
    timeline?.ended(index, finished.sameCall ? {} : finished.tool.outcome(span));
  }

  /** Releases every live run (end of input; for a long-lived replay, `reason` says why). */
  finish(reason: RunReleaseReason = 'shutdown'): void {
    this.guard.releaseAll(reason);
  }

  /**
   * A run's state was released. Its watch is settled (`run_ended`) by then: its counts are final.
   * Released early (idle, capacity), it may resume: its later calls are the same run's.
   */
  private released(run: GuardedRun, reason: RunReleaseReason, settled: RecoveryResolution | undefined): void {
    this.observer?.released(run, reason, settled);
    const replayed = this.replays.get(run);
    if (!replayed) return;
    replayed.replay.recovered(run.loop.recovery);
    if (reason === 'capacity' || reason === 'idle') {
      replayed.replay.evictions += 1;
      this.resumable.set(run.runKey, replayed);
    }
  }

  private replayOf(run: GuardedRun, scope: SpanScope, source: string | undefined): ReplayedRun {
    let replayed = this.replays.get(run);
    if (!replayed) {
      replayed = this.resumable.get(run.runKey) ?? this.newRun(run, source);
      this.resumable.delete(run.runKey);
      this.replays.set(run, replayed);
    }
    if (replayed.agentId === undefined && scope.agentId !== undefined) replayed.agentId = scope.agentId;
    return replayed;
  }

  private newRun(run: GuardedRun, source: string | undefined): ReplayedRun {
    const timeline = this.timelineCalls !== undefined ? new RunTimeline(this.timelineCalls) : undefined;
    const replayed: ReplayedRun = { runKey: run.runId, source, replay: new RunReplay(this.keepEvents, timeline) };
    this.runs.push(replayed);
    return replayed;
  }
}
