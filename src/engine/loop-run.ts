import { silentLogger, type EngineLogger } from '../util/logger.js';
import type { ResolvedLoopDetectionConfig } from './config.js';
import { detectToolCallLoop } from './detectors/detect.js';
import type { OutcomeHash } from './hashing/outcome-hash.js';
import { normalizeRunId, ToolCallHistory } from './history/tool-call-history.js';
import { PostCompactionGuard, type GuardVerdict } from './post-compaction-guard.js';
import type { LoopCheck, ToolCallRecord, ToolCallSignature } from './types.js';
import { WarningSuppression } from './warning-suppression.js';

/** A guard verdict that aborts the run. */
export type GuardAbort = Extract<GuardVerdict, { shouldAbort: true }>;

/** How a {@link LoopRun} is set up. */
export interface LoopRunOptions {
  /** The run's settings (its agent's, resolved). */
  readonly config: ResolvedLoopDetectionConfig;
  /** The run's id within `history`; blank or absent = unscoped. Default: unscoped. */
  readonly runId?: string;
  /** Receives OpenClaw's log lines (detections, blocks, guard). Default: silent. */
  readonly logger?: EngineLogger;
  /** Clock of the records' timestamps. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The window the run records into. Default: one of its own. Several runs may share one, as
   * the runs of one OpenClaw session share its history window (trimmed before run filtering).
   */
  readonly history?: ToolCallHistory;
}

const NOTHING: LoopCheck = Object.freeze({ emit: false, blocked: false });

/**
 * One run's detection state — its tool-call history, warning suppression and post-compaction
 * guard — driven in OpenClaw's order: judge a call before it runs and record it unless
 * blocked; record its hashed outcome (never a blocked call's) and let the guard observe it;
 * arm the guard on a compaction-retry. The run id and the config are bound at construction.
 * The span guard drives one per live run, for the processor and the offline analyzer alike.
 */
export class LoopRun {
  readonly history: ToolCallHistory;
  readonly config: ResolvedLoopDetectionConfig;
  /** The normalised run id (`undefined` = unscoped). */
  readonly runId: string | undefined;
  private readonly logger: EngineLogger;
  /** Created with the first warning verdict: most runs never have one. */
  private suppression: WarningSuppression | undefined = undefined;
  /** Created when the run is first armed: an unarmed guard observes nothing. */
  private guard: PostCompactionGuard | undefined = undefined;

  constructor(options: LoopRunOptions) {
    this.config = options.config;
    this.runId = normalizeRunId(options.runId);
    this.logger = options.logger ?? silentLogger;
    this.history = options.history ?? new ToolCallHistory({ now: options.now });
  }

  /**
   * Detects a loop for the call about to run (before it is recorded), writes the detector's
   * and OpenClaw's hook log lines, and applies warning suppression. Records nothing.
   */
  check(call: ToolCallSignature): LoopCheck {
    const finding = detectToolCallLoop(this.history.scopedView(this.runId), call, this.config);
    if (!finding) return NOTHING;
    const { verdict, log } = finding;
    if (log) this.logger[log.level](log.message);
    if (verdict.level === 'critical') {
      this.logger.error(`Blocking ${call.toolName} due to critical loop: ${verdict.message}`);
      return { verdict, emit: true, blocked: true };
    }
    this.suppression ??= new WarningSuppression();
    const emit = this.suppression.shouldEmit(verdict, this.config.warningThreshold);
    if (emit) this.logger.warn(`Loop warning for ${call.toolName}: ${verdict.message}`);
    return { verdict, emit, blocked: false };
  }

  /**
   * Checks a call and records it unless the verdict blocks it. A call judged only after it
   * ran (`alreadyRan`: arguments known only at its end) cannot be vetoed: it is recorded
   * whatever the verdict, so that its outcome counts (it is detected and reported, not blocked).
   */
  judge(call: ToolCallSignature, toolCallId?: string, alreadyRan = false): LoopCheck {
    const check = this.check(call);
    if (!check.blocked || alreadyRan) this.recordCall(call, toolCallId);
    return check;
  }

  /**
   * Records a call that was allowed to run. Skipped when `enabled` is explicitly `false`
   * (then neither the detectors nor the post-compaction guard use the history).
   */
  recordCall(call: ToolCallSignature, toolCallId?: string): void {
    if (this.config.trackHistory)
      this.history.appendCall(call.toolName, call.argsHash, toolCallId, this.runId, this.config.historySize);
  }

  /** Attaches a hashed outcome to its pending record (or appends one); returns that record (none when history is off). */
  recordOutcome(
    call: ToolCallSignature,
    toolCallId: string | undefined,
    resultHash: string,
    unknownToolName?: string,
  ): ToolCallRecord | undefined {
    if (!this.config.trackHistory) return undefined;
    return this.history.recordOutcome(
      { toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: this.runId, resultHash, unknownToolName },
      this.config.historySize,
    );
  }

  /**
   * Records the outcome of a call that ran and lets the guard observe it. Returns the guard's
   * abort verdict when this outcome completes a window of identical triples. A call without
   * an outcome hash (undefined result, the loop's own veto) is neither recorded nor observed.
   */
  complete(call: ToolCallSignature, toolCallId: string | undefined, outcome: OutcomeHash): GuardAbort | undefined {
    const { resultHash } = outcome;
    if (resultHash === undefined) return undefined;
    if (this.config.trackHistory) {
      this.history.attachOutcome(
        call.toolName,
        call.argsHash,
        toolCallId,
        this.runId,
        resultHash,
        outcome.unknownToolName,
        this.config.historySize,
      );
    }
    const verdict = this.guard?.observe(call, resultHash);
    return verdict?.shouldAbort ? verdict : undefined;
  }

  /** (Re-)arms the post-compaction guard; returns it so callers can tell whether it is enabled. */
  arm(): PostCompactionGuard {
    this.guard ??= new PostCompactionGuard({ ...this.config.postCompactionGuard, logger: this.logger });
    this.guard.arm();
    return this.guard;
  }
}
