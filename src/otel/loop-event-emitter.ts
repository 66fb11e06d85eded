import type { Attributes, Counter, DiagLogger, Span } from '@opentelemetry/api';
import { CompactionLoopPersistedError } from '../engine/errors/compaction-loop-persisted-error.js';
import { ToolLoopBlockedError } from '../engine/errors/tool-loop-blocked-error.js';
import type { GuardAbort } from '../engine/loop-run.js';
import type { GuardWindowSummary } from '../engine/post-compaction-guard.js';
import type { RecoveryResolution } from '../engine/recovery/recovery-watch.js';
import type { LoopVerdict } from '../engine/types.js';
import * as sc from '../semconv.js';
import type { SpanScope } from '../spans/run-scope.js';
import type { CallVerdict, ChatSpanFinished, GuardedRun, SpanStarted } from '../spans/span-guard.js';
import { describeError } from '../util/describe-error.js';
import { loopEventAttributes, loopEventLabels } from './event-attributes.js';
import {
  abortEvent,
  armedEvent,
  recoveryLabels,
  verdictEvent,
  windowClosedEvent,
  type LoopEventRecord,
} from './loop-events.js';
import type { Evidence, EvidenceSpans } from './evidence-spans.js';
import { recordToolLoopVerdict, type LoopAbortEvent, type LoopEvent } from './loop-event.js';
import type { RunSignals } from './run-signals.js';
import { redactUnknownToolName } from './unknown-tool-redaction.js';

/** What the emitter does besides span events and metrics. */
export interface EmitterOptions {
  readonly onLoopEvent?: (event: LoopEvent) => void;
  readonly onAbort?: (event: LoopAbortEvent) => void;
  readonly abortOnCritical: boolean;
  /** Names taken from tool output are replaced by a digest in what is exported and in callbacks. */
  readonly redactContent: boolean;
  /** `'shadow'`: verdicts are reported as `would_*` events, and nothing reaches helpers, callbacks or run signals. */
  readonly mode: 'enforce' | 'shadow';
}

/** The counters the emitter adds to. */
export interface EmitterCounters {
  /** `tool_loop.events`. */
  readonly events: Counter<Attributes>;
  /** `tool_loop.recovery`. */
  readonly recovery: Counter<Attributes>;
}

/** Where the emitter reports besides span events: its metrics, log, run signals and evidence spans. */
export interface EmitterOutputs {
  readonly counters: EmitterCounters;
  readonly log: DiagLogger;
  readonly signals: RunSignals;
  /** The processor's digest of a text (its seed), for names `redactContent` hides. */
  readonly digestText: (text: string) => string;
  readonly evidence: EvidenceSpans;
}

/** The span a loop event is about, and whether it can still be written to. */
export interface EventSpan {
  readonly span: Span;
  /** The span is still writable: events and the `tool_loop.verdict` attribute are added to it. */
  readonly writable: boolean;
}

/** Where a loop event happened: its span, and the run scope and run it concerns. */
export interface EventSite extends EventSpan {
  readonly scope: SpanScope;
  readonly run: GuardedRun;
}

/** A verdict on one call (see {@link LoopEventEmitter.verdict}). */
export interface CallVerdictReport {
  readonly toolName: string;
  readonly verdict: CallVerdict;
  readonly toolCallId?: string;
  /** The call id to put on the event, for a span that stands for several calls (a chat span). */
  readonly eventCallId?: string;
}

/**
 * Turns what the span guard decided into what an application sees: the verdict on the span
 * (for helpers), the `tool_loop.verdict` attribute and loop span events while the span is
 * writable, the `tool_loop.events` counter, the callbacks, and run aborts.
 */
export class LoopEventEmitter {
  private readonly counter: Counter<Attributes>;
  private readonly shadow: boolean;
  private readonly counters: EmitterCounters;
  private readonly log: DiagLogger;
  private readonly signals: RunSignals;
  private readonly digestText: (text: string) => string;
  private readonly evidence: EvidenceSpans;

  constructor(
    private readonly options: EmitterOptions,
    outputs: EmitterOutputs,
  ) {
    this.counters = outputs.counters;
    this.log = outputs.log;
    this.signals = outputs.signals;
    this.digestText = outputs.digestText;
    this.evidence = outputs.evidence;
    this.counter = outputs.counters.events;
    this.shadow = options.mode === 'shadow';
  }

  /**
   * A verdict on a tool call, annotated on the span while it is writable. A critical also gets
   * its evidence span. In shadow mode the verdict is only reported (`would_*`): helpers do not
   * see it, so they run the call.
   */
  verdict(site: EventSite, { toolName, verdict: { check }, toolCallId, eventCallId }: CallVerdictReport): void {
    const { span, scope, run } = site;
    const { verdict } = check;
    const { shadow } = this;
    const critical = verdict.level === sc.LEVEL_CRITICAL;
    const error = this.markVerdict(site, toolName, check);
    // What leaves the process (events, metric, callbacks) under redactContent; the verdict the
    // agent gets back keeps the name, since the agent saw the error it came from.
    const shown = this.shown(verdict, toolName);
    if (check.emit) {
      const event = verdictEvent(shown, check, scope, toolName, shadow);
      if (eventCallId !== undefined) event.extra[sc.ATTR_GEN_AI_TOOL_CALL_ID] = eventCallId;
      this.emit(site, event);
      if (!shadow)
        this.invoke('onLoopEvent', () => ({
          level: verdict.level,
          detector: verdict.detector,
          count: verdict.count,
          message: shown.message,
          toolName,
          runId: scope.runId,
          warningKey: shown.warningKey,
          ...callbackIds(span, scope),
          ...(verdict.pairedToolName !== undefined ? { pairedToolName: verdict.pairedToolName } : {}),
          ...(check.wastedTokens !== undefined ? { wastedTokens: check.wastedTokens } : {}),
          ...(check.wastedMs !== undefined ? { wastedMs: check.wastedMs } : {}),
          ...(check.budgetExceeded !== undefined ? { budgetExceeded: check.budgetExceeded } : {}),
        }));
      if (critical)
        this.evidenceSpan(site, event, { judged: 'call', signatures: check.window?.signatures ?? [], toolCallId });
    }
    if (error && this.options.abortOnCritical) this.abortRun(run, error);
  }

  /**
   * The calls a chat span's model asked for, judged as it ended, and the results it sent: each
   * verdict and abort as for a tool span, with the call's id on its event; the span's
   * `tool_loop.verdict` is the most severe of its calls'.
   */
  chat(at: EventSpan, { scope, run, completed, judged }: ChatSpanFinished): void {
    const site: EventSite = { span: at.span, writable: at.writable, scope, run };
    for (const done of completed) {
      if (done.abort) this.abort(site, done.abort, done.toolCallId);
      if (done.windowClosed) this.windowClosed(site, done.windowClosed);
    }
    let critical: CallVerdict | undefined;
    let toolName = '';
    for (const call of judged) {
      if (!call.verdict) continue;
      const { toolCallId } = call;
      this.verdict(site, { toolName: call.toolName, verdict: call.verdict, toolCallId, eventCallId: toolCallId });
      if (call.verdict.check.verdict.level === sc.LEVEL_CRITICAL) [critical, toolName] = [call.verdict, call.toolName];
    }
    if (critical) this.markVerdict(site, toolName, critical.check);
  }

  /**
   * A tool span took over a call a chat span's model asked for (see `RequestedCalls`): it
   * carries the verdict the call got then, so a helper inside it blocks a blocked call.
   */
  takenOver(span: Span, toolName: string, verdict: CallVerdict): void {
    this.markVerdict({ span, writable: true }, toolName, verdict.check);
  }

  /**
   * Records a verdict on the span for helpers and, while it is writable, its `tool_loop.verdict`
   * (neither in shadow mode); returns the error a blocked call stands for.
   */
  private markVerdict(
    { span, writable }: EventSpan,
    toolName: string,
    check: CallVerdict['check'],
  ): ToolLoopBlockedError | undefined {
    const { verdict } = check;
    const error = check.blocked
      ? new ToolLoopBlockedError(verdict.message, { detector: verdict.detector, count: verdict.count, toolName })
      : undefined;
    if (this.shadow) return error;
    this.guarded('recording the verdict', () =>
      recordToolLoopVerdict(span, {
        level: verdict.level,
        detector: verdict.detector,
        count: verdict.count,
        message: verdict.message,
        emitted: check.emit,
        error,
      }),
    );
    if (writable)
      this.guarded('the tool_loop.verdict attribute', () =>
        span.setAttribute(
          sc.ATTR_TOOL_LOOP_VERDICT,
          verdict.level === sc.LEVEL_CRITICAL ? sc.VERDICT_CRITICAL : sc.VERDICT_WARNING,
        ),
      );
    return error;
  }

  /**
   * A recovery watch was settled: counted in `tool_loop.recovery` by outcome, the action of
   * the verdict it followed, detector, tool and agent.
   */
  recovery(resolution: RecoveryResolution, agentId: string | undefined): void {
    const labels = recoveryLabels(resolution, agentId, this.shadow);
    this.guarded('the tool_loop.recovery counter', () => this.counters.recovery.add(1, labels));
  }

  /**
   * The post-compaction guard aborted the run on this span's outcome (in shadow mode: would
   * have; only the `tool_loop.would_abort` event, the counter and the evidence span report it).
   */
  abort(site: EventSite, verdict: GuardAbort, toolCallId?: string): void {
    const { span, scope, run } = site;
    const { shadow } = this;
    if (site.writable && !shadow)
      this.guarded('the tool_loop.verdict attribute', () =>
        span.setAttribute(sc.ATTR_TOOL_LOOP_VERDICT, sc.VERDICT_ABORTED),
      );
    const event = abortEvent(verdict, scope, shadow);
    this.emit(site, event);
    // The repeated call's kept records: after the compaction, and before it too when detection is on.
    this.evidenceSpan(site, event, { judged: 'outcome', signatures: [verdict.argsHash], toolCallId });
    if (shadow) return;
    const error = CompactionLoopPersistedError.fromVerdict(verdict);
    this.invoke('onAbort', () => ({
      code: sc.COMPACTION_LOOP_PERSISTED,
      detector: sc.COMPACTION_LOOP_PERSISTED,
      toolName: verdict.toolName,
      count: verdict.count,
      message: verdict.message,
      runId: scope.runId,
      ...callbackIds(span, scope),
      error,
    }));
    this.abortRun(run, error);
  }

  /**
   * A post-compaction window closed without an abort: `tool_loop.guard_window_closed` with the
   * calls it saw and how many repeated a (tool, args) of the outcomes before the compaction.
   */
  windowClosed(site: EventSite, summary: GuardWindowSummary): void {
    this.emit(site, windowClosedEvent(summary, site.scope));
  }

  /** A compaction retry armed the run's post-compaction guard. */
  armed(span: Span, scope: SpanScope, armed: NonNullable<SpanStarted<unknown>['armed']>): void {
    this.emit({ span, writable: true }, armedEvent(armed, scope));
  }

  /** The evidence span of a critical or an abort on `span`, linked to the run's calls with these signatures. */
  private evidenceSpan(
    { span, run }: EventSite,
    { fields, extra }: LoopEventRecord,
    {
      judged,
      signatures,
      toolCallId,
    }: { judged: Evidence['judged']; signatures: readonly string[]; toolCallId: string | undefined },
  ): void {
    this.guarded('the evidence span', () =>
      this.evidence.emit(span, {
        judged,
        attributes: loopEventAttributes(fields, extra),
        message: fields.message,
        toolCallId,
        members: run.loop.memberRefs(signatures),
        shadow: this.shadow,
      }),
    );
  }

  /** The verdict as exported: under `redactContent`, without names taken from tool output. */
  private shown(verdict: LoopVerdict, toolName: string): LoopVerdict {
    return this.options.redactContent ? redactUnknownToolName(verdict, toolName, this.digestText) : verdict;
  }

  /** Aborts the run's signals; the first reason stands. An abort listener that throws stops no other output. */
  private abortRun(run: GuardedRun, reason: Error): void {
    run.abortReason ??= reason;
    this.guarded('aborting the run', () => this.signals.abort(run.runKey, run.abortReason!));
  }

  /** A loop event: added to the span when it is still writable, and counted in the metric. */
  private emit({ span, writable }: EventSpan, { name, fields, extra }: LoopEventRecord): void {
    if (writable) this.guarded(`the ${name} span event`, () => span.addEvent(name, loopEventAttributes(fields, extra)));
    this.guarded('the tool_loop.events counter', () => this.counter.add(1, loopEventLabels(fields)));
  }

  private invoke<K extends 'onLoopEvent' | 'onAbort'>(
    key: K,
    event: () => Parameters<NonNullable<EmitterOptions[K]>>[0],
  ): void {
    const callback = this.options[key] as ((event: unknown) => void) | undefined;
    if (!callback) return;
    let built: unknown;
    try {
      built = event();
    } catch (error) {
      this.log.error(`building the ${key} event failed: ${describeError(error)}`);
      return;
    }
    try {
      const returned: unknown = callback(built);
      // An async callback: its rejection is this callback's failure, never an unhandled one.
      if (isThenable(returned))
        returned.then(undefined, (error: unknown) =>
          this.log.error(`${key} callback rejected: ${describeError(error)}`),
        );
    } catch (error) {
      this.log.error(`${key} callback threw: ${describeError(error)}`);
    }
  }

  /**
   * Runs one output on its own: the span events, the counter, the callbacks and the aborts are
   * independent, so a span, meter or listener that throws stops none of the others.
   */
  private guarded(what: string, output: () => void): void {
    try {
      output();
    } catch (error) {
      this.log.error(`${what} failed: ${describeError(error)}`);
    }
  }
}

/** Whether a callback returned a promise (or any thenable); reading `then` may throw, which the caller catches. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The span and agent a callback event refers to. */
function callbackIds(span: Span, scope: SpanScope): { traceId: string; spanId: string; agentId?: string } {
  const { traceId, spanId } = span.spanContext();
  return scope.agentId === undefined ? { traceId, spanId } : { traceId, spanId, agentId: scope.agentId };
}
