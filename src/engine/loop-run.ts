import { silentLogger, type EngineLogger } from '../util/logger.js';
import type { ResolvedLoopDetectionConfig } from './config.js';
import { detectToolCallLoop } from './detectors/detect.js';
import type { InFlightCall } from './history/queries.js';
import { normalizeRunId, ToolCallHistory } from './history/tool-call-history.js';
import {
  PostCompactionGuard,
  PRE_COMPACTION_BASELINE,
  type GuardVerdict,
  type GuardWindowSummary,
} from './post-compaction-guard.js';
import type { LoopCheck, OutcomeHash, ToolCallRecord, ToolCallSignature } from './types.js';
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
  /** Clock of the records' timestamps and of the argument-churn clock. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The window the run records into. Default: one of its own. Several runs may share one, as
   * the runs of one OpenClaw session share its history window (trimmed before run filtering).
   */
  readonly history?: ToolCallHistory;
}

const NOTHING: LoopCheck = Object.freeze({ emit: false, blocked: false });
const VETO: OutcomeHash = Object.freeze({ outcomeKind: 'tool-loop-veto' });
const NO_OBSERVATION = Object.freeze({});

/**
 * One run's detection state — its tool-call history, warning suppression and post-compaction
 * guard — driven in OpenClaw's order: judge a call before it runs and record it (a blocked
 * call as a loop veto); record its hashed outcome and let the guard observe it; arm the guard
 * on a compaction-retry. The run id and the config are bound at construction. The span guard
 * drives one per live run, for the processor and the offline analyzer alike.
 */
export class LoopRun {
  readonly history: ToolCallHistory;
  readonly config: ResolvedLoopDetectionConfig;
  /** The normalised run id (`undefined` = unscoped). */
  readonly runId: string | undefined;
  private readonly logger: EngineLogger;
  private readonly now: () => number;
  /** Created with the first warning verdict: most runs never have one. */
  private suppression: WarningSuppression | undefined = undefined;
  /** Created when the run is first armed: an unarmed guard observes nothing. */
  private guard: PostCompactionGuard | undefined = undefined;
  /**
   * Calls judged before they ran since the last call finished — the earlier members of the batch
   * being admitted — oldest first: one call as it is, two or more in an array.
   */
  private inFlight: InFlightCall | InFlightCall[] | undefined = undefined;
  /** When the current stretch of argument churn began (the run's clock), while it lasts. */
  private churnSince: number | undefined = undefined;

  constructor(options: LoopRunOptions) {
    this.config = options.config;
    this.runId = normalizeRunId(options.runId);
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.history = options.history ?? new ToolCallHistory({ now: this.now });
  }

  /**
   * Detects a loop for the call about to run (before it is recorded), writes the detector's
   * and OpenClaw's hook log lines, and applies warning suppression. Records nothing. Calls
   * still in flight count as no-progress vetoes (OpenClaw's whole-batch admission: a later
   * sibling must assume an earlier one makes no progress), unless `detectors.batchAdmission` is off.
   */
  check(call: ToolCallSignature): LoopCheck {
    const { inFlight } = this;
    // Sequential agents have no call in flight when the next is judged: no projection is built.
    const projected =
      inFlight === undefined || !this.config.detectors.batchAdmission
        ? undefined
        : Array.isArray(inFlight)
          ? inFlight
          : [inFlight];
    const view = this.history.scopedView(this.runId, projected);
    const finding = detectToolCallLoop(view, call, this.config);
    const churning = finding?.verdict.detector === 'argument_churn';
    // OpenClaw's liveness clock: it runs while churn stays active, and ordinary activity does not refresh it.
    const now = churning ? this.now() : 0;
    if (!churning) this.churnSince = undefined;
    else this.churnSince ??= now;
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
    if (!churning) return { verdict, emit, blocked: false };
    const since = this.churnSince!;
    return { verdict, emit, blocked: false, churnActiveSince: since, churnActiveMs: now - since };
  }

  /**
   * Checks a call and records it. A blocked call does not run: it is recorded as a loop veto,
   * which extends the no-progress streak once an older outcome anchors it, so a loop that goes
   * on reaches the circuit breaker (OpenClaw #127701; not recorded at all with
   * `detectors.vetoesExtendStreak` off). A call judged only after it ran (`alreadyRan`:
   * arguments known only at its end) cannot be vetoed: it is recorded as a call whatever the
   * verdict, so that its outcome counts (it is detected and reported, not blocked).
   */
  judge(call: ToolCallSignature, toolCallId?: string, alreadyRan = false): LoopCheck {
    const check = this.check(call);
    if (check.blocked && !alreadyRan) {
      if (this.config.detectors.vetoesExtendStreak) this.recordVeto(call, toolCallId);
      return check;
    }
    this.recordCall(call, toolCallId);
    if (!alreadyRan && this.config.trackHistory) this.enterFlight(call);
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

  /** Records a call that loop detection blocked: a record with the veto outcome, no hash. */
  recordVeto(call: ToolCallSignature, toolCallId?: string): void {
    if (this.config.trackHistory)
      this.history.appendOutcome(call.toolName, call.argsHash, toolCallId, this.runId, VETO, this.config.historySize);
  }

  /**
   * Attaches an outcome (a result hash, or a full {@link OutcomeHash}) to its pending record
   * (or appends one); returns that record (none when history is off).
   */
  recordOutcome(
    call: ToolCallSignature,
    toolCallId: string | undefined,
    outcome: string | OutcomeHash,
    unknownToolName?: string,
  ): ToolCallRecord | undefined {
    if (!this.config.trackHistory) return undefined;
    const hashed: OutcomeHash =
      typeof outcome === 'string'
        ? unknownToolName === undefined
          ? { resultHash: outcome }
          : { resultHash: outcome, unknownToolName }
        : outcome;
    return this.history.recordOutcome(
      { ...hashed, toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: this.runId },
      this.config.historySize,
    );
  }

  /**
   * Records the outcome of a call that ran and lets the guard observe it. Returns the guard's
   * abort verdict when this outcome completes a window of identical triples. A call without
   * an outcome hash (an undefined result) is not recorded; a loop veto reported as an outcome
   * (a blocked result) is recorded as one; neither is observed by the guard.
   */
  complete(call: ToolCallSignature, toolCallId: string | undefined, outcome: OutcomeHash): GuardAbort | undefined {
    return this.completeObserved(call, toolCallId, outcome).abort;
  }

  /**
   * {@link complete}, also returning what the guard reported when this outcome closed its
   * window without an abort (the calls it saw and its `preCompactionRepeats`).
   */
  completeObserved(
    call: ToolCallSignature,
    toolCallId: string | undefined,
    outcome: OutcomeHash,
  ): { readonly abort?: GuardAbort; readonly windowClosed?: GuardWindowSummary } {
    this.leaveFlight();
    const { resultHash } = outcome;
    const veto = outcome.outcomeKind === 'tool-loop-veto';
    if (resultHash === undefined && !(veto && this.config.detectors.vetoesExtendStreak)) return NO_OBSERVATION;
    if (this.config.trackHistory) {
      this.history.attachOutcome(
        call.toolName,
        call.argsHash,
        toolCallId,
        this.runId,
        outcome,
        this.config.historySize,
      );
    }
    if (resultHash === undefined) return NO_OBSERVATION;
    const verdict = this.guard?.observe(call, resultHash);
    if (!verdict) return NO_OBSERVATION;
    if (verdict.shouldAbort) return { abort: verdict };
    return verdict.windowClosed ? { windowClosed: verdict.windowClosed } : NO_OBSERVATION;
  }

  /**
   * (Re-)arms the post-compaction guard; returns it so callers can tell whether it is enabled.
   * The guard's pre-compaction baseline is the run's newest hashed outcomes (at most 16).
   */
  arm(): PostCompactionGuard {
    this.guard ??= new PostCompactionGuard({ ...this.config.postCompactionGuard, logger: this.logger });
    this.guard.arm(this.history.scopedView(this.runId).recentSignatures(PRE_COMPACTION_BASELINE));
    return this.guard;
  }

  private enterFlight(call: ToolCallSignature): void {
    if (!this.config.detectors.batchAdmission) return;
    const inFlight = this.inFlight;
    // One call in flight is the common case (the call being run): it is kept without an array.
    if (inFlight === undefined) this.inFlight = call;
    else if (!Array.isArray(inFlight)) this.inFlight = [inFlight, call];
    else {
      inFlight.push(call);
      // A span that never ends leaves its call here: keep no more than the window could show.
      if (inFlight.length > this.config.historySize) inFlight.shift();
    }
  }

  /**
   * A call finished: the batch it was admitted with has been admitted (the agent runs a batch
   * after admitting it), so no sibling is projected any more. This also forgets calls whose
   * span never ends.
   */
  private leaveFlight(): void {
    this.inFlight = undefined;
  }
}
