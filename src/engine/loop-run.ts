import { silentLogger, type EngineLogger } from '../util/logger.js';
import { configForTool, readsResultSimilarity, type ResolvedLoopDetectionConfig } from './config.js';
import { escalatedVerdict, passedBudget, type BudgetKind, type LoopBudget } from './cost/loop-budget.js';
import { UsageLedger } from './cost/usage-ledger.js';
import { CallRefs, type CallRef } from './evidence/call-refs.js';
import { loopSignaturesOf, loopWindow, type LoopWindow } from './evidence/loop-window.js';
import { RecoveryWatch, type RecoveryCounts, type RecoveryResolution } from './recovery/recovery-watch.js';
import { detectToolCallLoop } from './detectors/detect.js';
import { DeferredOutcome } from './history/deferred-outcome.js';
import type { DeferredOutcomeBudget } from './history/deferred-outcome-budget.js';
import type { InFlightCall } from './history/in-flight-call.js';
import { outcomeFactsOf } from './history/outcome-facts.js';
import { PackedRunLog } from './history/packed-run-log.js';
import { RunHistoryView } from './history/run-history-view.js';
import { pendingRecordOf, recordAt, type RunLog } from './history/run-log.js';
import type { ToolCallHistory } from './history/tool-call-history.js';
import { normalizeRunId } from './normalize-run-id.js';
import {
  PostCompactionGuard,
  PRE_COMPACTION_BASELINE,
  type GuardVerdict,
  type GuardWindowSummary,
} from './post-compaction-guard.js';
import type { LoopCheck, LoopVerdict, OutcomeFacts, OutcomeHash, ToolCallRecord, ToolCallSignature } from './types.js';
import { WarningSuppression } from './warning-suppression.js';

/** A guard verdict that aborts the run. */
export type GuardAbort = Extract<GuardVerdict, { shouldAbort: true }>;

/** How a {@link LoopRun} is set up. */
export interface LoopRunOptions {
  /** The run's settings (its agent's, resolved). */
  readonly config: ResolvedLoopDetectionConfig;
  /** The run's id (within `history`, when given); blank or absent: none. Default: none. */
  readonly runId?: string;
  /** Receives OpenClaw's log lines (detections, blocks, guard). Default: silent. */
  readonly logger?: EngineLogger;
  /** Clock of the records' timestamps and of the argument-churn clock. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * A window shared with other runs, as the runs of one OpenClaw session share its history
   * (trimmed to `historySize` before run filtering: another run's calls may evict this one's
   * records). Default: none; the run keeps its own `historySize` records.
   */
  readonly history?: ToolCallHistory;
  /**
   * Budgets, shadow mode and recovery tracking; kept by reference, so that the runs of one
   * processor share one. Default: none of them (OpenClaw's behaviour).
   */
  readonly policy?: LoopPolicy;
  /**
   * Lets the run keep a {@link DeferredOutcome} given to {@link LoopRun.complete} unhashed until
   * its hash is read, within this budget (shared by the runs of one span guard). Default: none
   * (every outcome is hashed as it completes).
   * @internal
   */
  readonly deferredOutcomes?: DeferredOutcomeBudget;
}

/** What a run does beyond OpenClaw's rules; every part is off when absent. */
export interface LoopPolicy {
  /**
   * What a detected loop may burn (tokens reported through {@link LoopRun.spend}, wall time)
   * before its warning becomes a critical. Default: none (the count thresholds alone decide).
   */
  readonly budget?: LoopBudget;
  /**
   * Shadow mode: verdicts are reached and reported as usual, but nothing is blocked (a critical
   * call is recorded as a call that ran, so its outcome counts). Default `false`.
   */
  readonly shadow?: boolean;
  /**
   * Calls watched after each surfaced verdict to tell whether the run left the loop (see
   * {@link LoopRun.recovery}); 0 turns recovery tracking off. Default 0.
   */
  readonly recoveryWindow?: number;
}

/** A run's state beyond OpenClaw's, created when first needed: most runs never need it. */
class RunExtras {
  /** Created with the first token report. */
  usage: UsageLedger | undefined = undefined;
  /** Created with the first call judged with a span reference. */
  refs: CallRefs | undefined = undefined;
  /** Created with the first surfaced verdict. */
  recovery: RecoveryWatch | undefined = undefined;
}

/** A {@link LoopCheck} with what the run measured of the verdict's loop. */
export interface RunCheck extends LoopCheck {
  /** With a surfaced verdict (or any verdict under a budget): the loop's members recorded before this call. */
  readonly window?: LoopWindow;
  /** The budget whose passing escalated this call's warning to a critical. */
  readonly budgetExceeded?: BudgetKind;
  /** The recovery watch this call settled (a verdict surfaced on an earlier call). */
  readonly recovery?: RecoveryResolution;
}

/** How {@link LoopRun.judge} treats a call. */
export interface JudgeOptions {
  /** The call's id, which matches its outcome to it. Default: none. */
  readonly toolCallId?: string;
  /**
   * The call was judged only after it ran (its arguments were known only at its end): it is
   * recorded whatever the verdict, detected and reported but not blocked. Default `false`.
   */
  readonly alreadyRan?: boolean;
  /**
   * The call's span, kept (16 bytes) for the links of an evidence span while detection or an
   * armed guard runs. Default: none.
   */
  readonly ref?: CallRef;
  /** The call's time on the run's clock, when the caller has just read it (its record's timestamp). Default: the clock is read. */
  readonly at?: number;
}

const NOTHING: RunCheck = Object.freeze({ emit: false, blocked: false });
const NO_POLICY: LoopPolicy = Object.freeze({});
const NO_RECOVERY: RecoveryCounts = Object.freeze({ recovered: 0, repeated: 0, runEnded: 0 });
const VETO: OutcomeFacts = Object.freeze({ outcomeKind: 'tool-loop-veto' });
const NO_JUDGE_OPTIONS: JudgeOptions = Object.freeze({});
const NO_OBSERVATION = Object.freeze({});

/**
 * One run's detection state — its tool-call records, warning suppression and post-compaction
 * guard — driven in OpenClaw's order: judge a call before it runs and record it (a blocked
 * call as a loop veto); record its hashed outcome and let the guard observe it; arm the guard
 * on a compaction-retry. The run id and the config are bound at construction. The span guard
 * drives one per live run, for the processor and the offline analyzer alike.
 */
export class LoopRun {
  readonly config: ResolvedLoopDetectionConfig;
  /** The normalised run id (`undefined`: none). */
  readonly runId: string | undefined;
  /** The run's records (its part of `window`, when it shares one). */
  private readonly log: RunLog;
  private readonly window: ToolCallHistory | undefined;
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
  /** Shared with the other runs of the same settings: one pointer per run. */
  private readonly policy: LoopPolicy;
  private extras: RunExtras | undefined = undefined;
  private readonly deferred: DeferredOutcomeBudget | undefined;
  /** The call judged last when no older record had its signature, and its record (see {@link isNewSignature}). */
  private newCall: ToolCallSignature | undefined = undefined;
  private newCallSeq = -1;

  constructor(options: LoopRunOptions) {
    this.config = options.config;
    this.runId = normalizeRunId(options.runId);
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.window = options.history;
    this.log = this.window ? this.window.logOf(this.runId) : new PackedRunLog();
    this.policy = options.policy ?? NO_POLICY;
    this.deferred = options.deferredOutcomes;
  }

  /** How this run's surfaced verdicts turned out so far (all zero without recovery tracking). */
  get recovery(): RecoveryCounts {
    return this.extras?.recovery?.counts ?? NO_RECOVERY;
  }

  /** Tokens the run's model calls reported to it so far (0 when none reported usage). */
  get tokensSpent(): number {
    return this.extras?.usage?.spent ?? 0;
  }

  /** A model call of this run reported token usage (input and output), now. */
  spend(tokens: number): void {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    const extras = (this.extras ??= new RunExtras());
    (extras.usage ??= new UsageLedger(2 * this.config.historySize)).add(tokens, this.now());
  }

  /**
   * The run's state was let go (its root ended, it went idle or was evicted): outcomes it kept
   * unhashed stop counting against the shared budget (they are hashed only if its history is
   * still read).
   */
  released(): void {
    if (this.deferred) this.log.releaseDeferred();
  }

  /** The run's records, oldest first, in OpenClaw's shape (a copy, for inspection). */
  records(): ToolCallRecord[] {
    const records: ToolCallRecord[] = [];
    for (let s = this.log.first; s < this.log.end; s += 1) records.push(recordAt(this.log, s, this.runId));
    return records;
  }

  /** The run ended: settles a recovery watch still open (`run_ended`) and returns it. */
  end(): RecoveryResolution | undefined {
    return this.extras?.recovery?.end();
  }

  /**
   * The span references of the run's newest calls with one of these signatures, oldest first
   * (the calls judged with one, while detection or an armed guard was running).
   */
  memberRefs(signatures: readonly string[]): CallRef[] {
    return this.extras?.refs?.of(signatures) ?? [];
  }

  /**
   * Detects a loop for the call about to run (before it is recorded), writes the detector's
   * and OpenClaw's hook log lines, and applies warning suppression. Records nothing. Calls
   * still in flight count as no-progress vetoes (OpenClaw's whole-batch admission: a later
   * sibling must assume an earlier one makes no progress), unless `detectors.batchAdmission` is off.
   */
  check(call: ToolCallSignature): RunCheck {
    return this.checkIn(this.history(), call);
  }

  /** The run's history as the detectors read it now, with the calls in flight projected. */
  private history(): RunHistoryView {
    const { inFlight } = this;
    // Sequential agents have no call in flight when the next is judged: no projection is built.
    const projected =
      inFlight === undefined || !this.config.detectors.batchAdmission
        ? undefined
        : Array.isArray(inFlight)
          ? inFlight
          : [inFlight];
    return new RunHistoryView(this.log, projected);
  }

  /** {@link check} over a history. */
  private checkIn(view: RunHistoryView, call: ToolCallSignature): RunCheck {
    const config = configForTool(this.config, call.toolName);
    const finding = detectToolCallLoop(view, call, config);
    const churning = finding?.verdict.detector === 'argument_churn';
    // OpenClaw's liveness clock: it runs while churn stays active, and ordinary activity does not refresh it.
    const now = churning ? this.now() : 0;
    if (!churning) this.churnSince = undefined;
    else this.churnSince ??= now;
    if (!finding) return NOTHING;
    const { log } = finding;
    let { verdict } = finding;
    if (log) this.logger[log.level](log.message);
    const { shadow } = this.policy;
    const budget = activeBudget(this.policy.budget);
    let measured = budget ? this.measure(call, verdict) : undefined;
    let budgetExceeded: BudgetKind | undefined;
    if (budget && measured && verdict.level === 'warning') {
      budgetExceeded = passedBudget(budget, measured);
      if (budgetExceeded)
        verdict = escalatedVerdict(verdict, call.toolName, { kind: budgetExceeded, budget, waste: measured });
    }
    if (verdict.level === 'critical') {
      if (shadow)
        this.logger.error(`Shadow mode: would block ${call.toolName} due to critical loop: ${verdict.message}`);
      else this.logger.error(`Blocking ${call.toolName} due to critical loop: ${verdict.message}`);
      measured ??= this.measure(call, verdict);
      const check: RunCheck = { verdict, emit: true, blocked: shadow !== true, ...measured };
      return budgetExceeded ? { ...check, budgetExceeded } : check;
    }
    this.suppression ??= new WarningSuppression();
    const emit = this.suppression.shouldEmit(verdict, verdict.threshold ?? config.warningThreshold);
    if (emit) this.logger.warn(`Loop warning for ${call.toolName}: ${verdict.message}`);
    if (emit) measured ??= this.measure(call, verdict);
    const check: RunCheck = measured
      ? { verdict, emit, blocked: false, ...measured }
      : { verdict, emit, blocked: false };
    if (!churning) return check;
    const since = this.churnSince!;
    return { ...check, churnActiveSince: since, churnActiveMs: now - since };
  }

  /**
   * What the verdict's loop has burned: time and reported tokens since its first member call
   * in the window, and that window.
   */
  private measure(
    call: ToolCallSignature,
    verdict: LoopVerdict,
  ): { window: LoopWindow; wastedMs: number; wastedTokens?: number } {
    const window = loopWindow(this.log, loopSignaturesOf(verdict, call));
    const now = this.now();
    const since = window.firstTimestamp ?? now;
    const wastedMs = Math.max(0, now - since);
    const usage = this.extras?.usage;
    return usage ? { window, wastedMs, wastedTokens: usage.spentAfter(since) } : { window, wastedMs };
  }

  /**
   * Checks a call and records it. A blocked call does not run: it is recorded as a loop veto,
   * which extends the no-progress streak once an older outcome anchors it, so a loop that goes
   * on reaches the circuit breaker (OpenClaw #127701; not recorded at all with
   * `detectors.vetoesExtendStreak` off). A call judged only after it ran (`alreadyRan`) cannot
   * be vetoed: it is recorded as a call whatever the verdict, so that its outcome counts. In
   * shadow mode nothing is blocked. The call first settles an open recovery watch; a surfaced
   * verdict opens one (with `recoveryWindow`); {@link RunCheck.recovery} is the one settled.
   *
   * `options` may also be the call's id alone (`judge(call, toolCallId)`, the earlier form).
   */
  judge(call: ToolCallSignature, options: JudgeOptions | string = NO_JUDGE_OPTIONS): RunCheck {
    const { toolCallId, alreadyRan = false, ref, at } = typeof options === 'string' ? { toolCallId: options } : options;
    const settled = this.extras?.recovery?.observe(call.argsHash);
    const view = this.history();
    const check = this.checkIn(view, call);
    if (ref && this.config.trackHistory && (this.config.enabled || this.guard?.enabled))
      ((this.extras ??= new RunExtras()).refs ??= new CallRefs(this.config.historySize)).add(call.argsHash, ref);
    const { verdict } = check;
    const replaced =
      verdict && check.emit && (this.policy.recoveryWindow ?? 0) > 0
        ? ((this.extras ??= new RunExtras()).recovery ??= new RecoveryWatch(this.policy.recoveryWindow!)).watch(
            check.window?.signatures ?? loopSignaturesOf(verdict, call),
            verdict.level,
            verdict.detector,
            call.toolName,
          )
        : undefined;
    const recovery = settled ?? replaced;
    const judged = recovery ? { ...check, recovery } : check;
    if (check.blocked && !alreadyRan) {
      if (this.config.detectors.vetoesExtendStreak) this.recordVeto(call, toolCallId);
      return judged;
    }
    this.recordCall(call, toolCallId, at);
    // Most calls are new in their run, and the check found so already.
    const isNew = this.config.trackHistory && view.recentCount(call.argsHash, call.toolName) === 0;
    this.newCall = isNew ? call : undefined;
    this.newCallSeq = this.log.end - 1;
    if (!alreadyRan && this.config.trackHistory) this.enterFlight(call);
    return judged;
  }

  /**
   * Records a call that was allowed to run (`at`: as for {@link judge}). Skipped when `enabled`
   * is explicitly `false` (then neither the detectors nor the post-compaction guard use the history).
   */
  recordCall(call: ToolCallSignature, toolCallId?: string, at?: number): void {
    if (this.config.trackHistory) this.append(call, toolCallId, at ?? this.now());
  }

  /** Records a call that loop detection blocked: a record with the veto outcome, no hash. */
  recordVeto(call: ToolCallSignature, toolCallId?: string): void {
    if (this.config.trackHistory) this.log.setOutcome(this.append(call, toolCallId, this.now()), undefined, VETO);
  }

  /**
   * Attaches an outcome to its pending record (or appends one), without the guard observing it;
   * returns that record (none when history is off).
   */
  recordOutcome(
    call: ToolCallSignature,
    toolCallId: string | undefined,
    outcome: OutcomeHash,
  ): ToolCallRecord | undefined {
    if (!this.config.trackHistory) return undefined;
    const hashed = outcome instanceof DeferredOutcome ? outcome.resolve() : outcome;
    return recordAt(this.log, this.attach(call, toolCallId, hashed), this.runId);
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
    if (outcome instanceof DeferredOutcome) {
      if (!this.keepsUnhashed(call) || !outcome.keep()) return this.observe(call, toolCallId, outcome.resolve());
      // A success with a hash (a deferred outcome always has one) that no guard window observes.
      if (this.config.trackHistory) this.deferred!.admit(outcome, this.log, this.attach(call, toolCallId, outcome));
      return NO_OBSERVATION;
    }
    return this.observe(call, toolCallId, outcome);
  }

  /** {@link completeObserved} for an outcome already hashed. */
  private observe(
    call: ToolCallSignature,
    toolCallId: string | undefined,
    outcome: OutcomeHash,
  ): { readonly abort?: GuardAbort; readonly windowClosed?: GuardWindowSummary } {
    const { resultHash } = outcome;
    const veto = outcome.outcomeKind === 'tool-loop-veto';
    if (resultHash === undefined && !(veto && this.config.detectors.vetoesExtendStreak)) return NO_OBSERVATION;
    if (this.config.trackHistory) this.attach(call, toolCallId, outcome);
    if (resultHash === undefined) return NO_OBSERVATION;
    const verdict = this.guard?.observe(call, resultHash);
    if (!verdict) return NO_OBSERVATION;
    if (verdict.shouldAbort) return { abort: verdict };
    return verdict.windowClosed ? { windowClosed: verdict.windowClosed } : NO_OBSERVATION;
  }

  /**
   * Appends a pending record, evicting the oldest beyond `historySize` (the shared window's,
   * when the run records into one). Returns its number.
   */
  private append(call: ToolCallSignature, toolCallId: string | undefined, timestamp: number): number {
    const { historySize } = this.config;
    if (!this.window) return this.log.push(call, toolCallId, timestamp, historySize);
    const { toolName, argsHash } = call;
    return this.window.append(this.log, { toolName, argsHash, toolCallId, timestamp }, historySize);
  }

  /**
   * Gives the outcome to the newest pending record of its call (same call id when given), else
   * to a record appended for it, as OpenClaw's after-tool-call step does. A deferred outcome is
   * kept unhashed; another keeps its near-duplicate evidence when a detector reads it. Returns
   * the record's number.
   */
  private attach(call: ToolCallSignature, toolCallId: string | undefined, outcome: OutcomeHash): number {
    let seq = pendingRecordOf(this.log, call, toolCallId);
    if (seq < 0) seq = this.append(call, toolCallId, this.now());
    if (outcome instanceof DeferredOutcome) this.log.setDeferred(seq, outcome);
    else
      this.log.setOutcome(
        seq,
        outcome.resultHash,
        outcomeFactsOf(outcome, { similarity: readsResultSimilarity(this.config) }),
      );
    return seq;
  }

  /**
   * Whether a deferred outcome of this call may be kept unhashed now: a budget is given, no
   * guard window is observing hashes, no enabled detector reads the results of other
   * signatures on every call (those would hash it at the next call anyway) or the results'
   * near-duplicate evidence (which is computed with the hash), and the call is new in the
   * history (its own record the only one of its signature): a call made again is likely to be
   * made once more, and its result compared then.
   */
  private keepsUnhashed(call: ToolCallSignature): boolean {
    const { detectors } = this.config;
    return (
      this.deferred !== undefined &&
      this.guard?.armed !== true &&
      !readsResultSimilarity(this.config) &&
      !(this.config.enabled && (detectors.resultCycle || detectors.redundantCall)) &&
      this.isNewSignature(call)
    );
  }

  /** Whether the log holds at most one record of the call's signature (its own). */
  private isNewSignature(call: ToolCallSignature): boolean {
    // Judged new last, and nothing recorded since: its own record is the only one.
    if (call === this.newCall && this.log.end === this.newCallSeq + 1) return true;
    const newest = this.log.newestOf(call, this.log.end);
    return newest < 0 || this.log.newestOf(call, newest) < 0;
  }

  /**
   * (Re-)arms the post-compaction guard; returns it so callers can tell whether it is enabled.
   * The guard's pre-compaction baseline is the run's newest hashed outcomes (at most 16).
   */
  arm(): PostCompactionGuard {
    this.guard ??= new PostCompactionGuard({ ...this.config.postCompactionGuard, logger: this.logger });
    this.guard.arm(new RunHistoryView(this.log).recentSignatures(PRE_COMPACTION_BASELINE));
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

/** A budget with at least one limit, else none. */
function activeBudget(budget: LoopBudget | undefined): LoopBudget | undefined {
  return budget && (budget.tokens !== undefined || budget.ms !== undefined) ? budget : undefined;
}
