import type { ResolvedLoopDetectionConfig } from '../engine/config.js';
import type { LoopBudget } from '../engine/cost/loop-budget.js';
import type { CallRef } from '../engine/evidence/call-refs.js';
import { DeferredOutcomeBudget } from '../engine/history/deferred-outcome-budget.js';
import { LoopRun, type GuardAbort, type LoopPolicy, type RunCheck } from '../engine/loop-run.js';
import { guardArmedMessage, type GuardWindowSummary } from '../engine/post-compaction-guard.js';
import type { RecoveryResolution } from '../engine/recovery/recovery-watch.js';
import type { OutcomeHash, ToolCallSignature } from '../engine/types.js';
import type { EngineLogger } from '../util/logger.js';
import { LiveSpanStates } from './live-span-states.js';
import { RunRegistry, type HeldRun, type RunReleaseReason } from './run-registry.js';
import {
  explicitRunKey,
  NO_PARENT,
  passesOn,
  RunScopes,
  traceRunKey,
  type SpanParentContext,
  type SpanScope,
} from './run-scope.js';
import { spanIdOf } from './span-view.js';
import { RequestedCalls, type PendingCall } from './requested-calls.js';
import {
  isChatCalls,
  type ChatCallsSource,
  type SpanReader,
  type SpanReading,
  type ToolCallSource,
} from './span-reading.js';

/** A live run: its detection state, and why it was aborted once it was. */
export interface GuardedRun {
  readonly runKey: string;
  /** The run as users see it (see `SpanScope.runId`). */
  readonly runId: string;
  /** The agent id of the scope that opened the run, when known. */
  readonly agentId?: string;
  readonly loop: LoopRun;
  /** The first reason the run was aborted with (kept so that a `runSignal` asked for later aborts too). */
  abortReason?: Error;
}

/** A live run as the guard keeps it. */
interface RunState extends GuardedRun {
  /**
   * Per tool name, calls judged at start not yet claimed by a span matched at end (see
   * {@link ToolSpanFinished.sameCall}): `[toolName, count, toolName, count, …]`, sized exactly
   * (a run calls a handful of tools; a map per run would cost several times as much).
   */
  unclaimed: (string | number)[] | undefined;
  /** Calls its chat spans' models asked for (created with the first; most runs have none). */
  requested: RequestedCalls<CallVerdict> | undefined;
}

/** How a {@link SpanGuard} is set up. */
export interface SpanGuardOptions<S> {
  readonly reader: SpanReader<S>;
  /** A run's settings, from its agent id (an `AgentConfigResolver`'s `forAgent`). */
  readonly configFor: (agentId: string | undefined) => ResolvedLoopDetectionConfig;
  /** Receives OpenClaw's log lines. */
  readonly logger: EngineLogger;
  /** Clock of idle releases and of the records' timestamps, in ms. */
  readonly clock: () => number;
  /** Idle time after which a run's state is released; a run with a tool span in flight is never idle. */
  readonly runIdleTtlMs: number;
  readonly maxLiveRuns: number;
  /**
   * Called when a run's state is released, with the recovery watch its end settled
   * (`run_ended`; none for a run evicted for capacity, whose end is unknown).
   */
  readonly onRelease?: (run: GuardedRun, reason: RunReleaseReason, settled?: RecoveryResolution) => void;
  /** Each run's loop budget (see `LoopRunOptions.budget`). Default: none. */
  readonly budget?: LoopBudget;
  /** Shadow mode: nothing is blocked (see `LoopRunOptions.shadow`). Default `false`. */
  readonly shadow?: boolean;
  /** Calls watched after a surfaced verdict (see `LoopRunOptions.recoveryWindow`). Default 0 (off). */
  readonly recoveryWindow?: number;
  /** Whether tool calls keep their span references now (for evidence links). Default: never. */
  readonly keepCallRefs?: () => boolean;
  /**
   * Bytes of raw result text that all runs together may hold for results hashed only when
   * their hash is first read (see `DeferredOutcome`); beyond it the oldest are hashed. 0: every
   * result is hashed as its span ends. Default {@link DEFERRED_RESULT_BYTES}.
   */
  readonly deferredResultBytes?: number;
}

/**
 * What the runs of one span guard may hold of raw results waiting to be hashed: 8 MiB (texts
 * counted at two bytes a character), e.g. the last 30 results of 10 KB of 27 runs at once.
 */
export const DEFERRED_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * How many results waiting to be hashed the runs of one span guard may hold at most: 1024 (the
 * last 30 results of 34 runs at once). Besides its texts a waiting result holds its objects and
 * closures: small results would reach {@link DEFERRED_RESULT_BYTES} only by the ten thousand,
 * holding megabytes of those.
 */
export const DEFERRED_RESULT_COUNT = 1024;

/** A verdict reached on a call: before it ran (`start`) or, for arguments known only at its end, after (`end`). */
export interface CallVerdict {
  readonly check: RunCheck & { readonly verdict: NonNullable<RunCheck['verdict']> };
  readonly phase: 'start' | 'end';
}

/** What the guard made of a starting span that concerns a run. */
export interface SpanStarted<S> {
  readonly scope: SpanScope;
  /** Present for a tool span and for a compaction retry: the run they touched. */
  readonly run?: GuardedRun;
  /** A compaction retry armed the run's post-compaction guard (absent when the guard is disabled). */
  readonly armed?: { readonly windowSize: number; readonly message: string };
  /** A tool span recognised at start. */
  readonly tool?: ToolCallSource<S>;
  /** The call, when its arguments were known at start. */
  readonly call?: ToolCallSignature;
  /** The verdict on the call, when it was judged at start and a detector matched. */
  readonly verdict?: CallVerdict;
  /** The recovery watch this call settled (a verdict surfaced on an earlier call of the run). */
  readonly recovery?: RecoveryResolution;
  /**
   * A tool span of the same tool started inside a live tool span (e.g. `traceToolCall` inside an
   * instrumentation's tool span): one call, judged and recorded once, by the outer span. This is
   * that outer span; its verdict is the call's. (Absent `tool`: the inner span is no call of its own.)
   */
  readonly sameCallAs?: object;
  /**
   * The tool span is a call a chat span's model asked for, judged as that span ended (see
   * `RequestedCalls`): not judged again; this is the verdict it got then, if any.
   */
  readonly asked?: { readonly verdict?: CallVerdict };
}

/** A call a model asked for, judged as its chat span ended (before the agent runs it). */
export interface RequestedCallJudged {
  readonly toolName: string;
  readonly toolCallId?: string;
  /** The verdict, when a detector matched. */
  readonly verdict?: CallVerdict;
  /** The recovery watch this call settled. */
  readonly recovery?: RecoveryResolution;
}

/** A call a model asked for earlier, whose result a chat span sent. */
export interface RequestedCallCompleted {
  readonly toolName: string;
  readonly toolCallId?: string;
  /** The post-compaction guard's abort, when this outcome completed a window of identical triples. */
  readonly abort?: GuardAbort;
  readonly windowClosed?: GuardWindowSummary;
}

/** What the guard made of an ending model-call (chat) span that concerns a run. */
export interface ChatSpanFinished {
  readonly scope: SpanScope;
  readonly run: GuardedRun;
  /** The calls whose results it sent, recorded (before its own calls were judged). */
  readonly completed: readonly RequestedCallCompleted[];
  /** The calls its model asked for, judged in order (those of tools the run has tool spans of are left to them). */
  readonly judged: readonly RequestedCallJudged[];
}

/** What the guard made of an ending tool span. */
export interface ToolSpanFinished<S> {
  readonly scope: SpanScope;
  readonly run: GuardedRun;
  readonly tool: ToolCallSource<S>;
  readonly call: ToolCallSignature;
  /** True for a span recognised only as it ended. */
  readonly matchedAtEnd: boolean;
  /** The verdict on a call judged only at its end (it had already run: detected, not blocked). */
  readonly verdict?: CallVerdict;
  /** The recovery watch this call, judged at its end, settled. */
  readonly recovery?: RecoveryResolution;
  /** The post-compaction guard's abort, when this outcome completed a window of identical triples. */
  readonly abort?: GuardAbort;
  /** What the post-compaction guard reported when this outcome closed its window without an abort. */
  readonly windowClosed?: GuardWindowSummary;
  /**
   * The span was recognised only at its end, and a call of the same tool in its run was judged
   * at start since the last such span ended (a `traceToolCall` inside an instrumentation's tool
   * span, which may not be its OTel parent): that inner span was the call, so this one was
   * neither judged nor recorded.
   */
  readonly sameCall?: true;
}

/** A tool span between its start and its end. */
interface ToolSpanState<S> {
  readonly tool: ToolCallSource<S>;
  readonly scope: SpanScope;
  readonly matchedAtEnd: boolean;
  /** The run, held from the span's start to its end (absent for a span matched only at its end). */
  readonly held?: HeldRun<RunState>;
  call?: ToolCallSignature;
  /** Critical at start: the call did not run, and its outcome is never recorded, so the block stays in force. */
  vetoed: boolean;
  /** Its run scope is kept here for its children (see `RunScopes.resolve`'s `held`), not by the run scopes. */
  readonly scopeHeld: boolean;
  /**
   * Its held scope was handed back to the run scopes (`RunScopes.rememberById`) when its state
   * moved out of the array of the newest, where it is no longer found by span id.
   */
  handedBack: boolean;
  /** Inside a live tool span of the same call (that span's state): nothing of its own is judged or recorded. */
  readonly outer?: ToolSpanState<S>;
  /**
   * The outcome an inner span of this call read as it ended: the call's outcome (a guarded
   * helper hashes the result its tool returned, before anything is added for the model).
   */
  innerOutcome?: OutcomeHash;
}

/**
 * The span lifecycle of loop detection, framework-free, once for the processor and the
 * offline analyzer's replay: a starting span resolves its run scope and may open a run or arm
 * its post-compaction guard; a tool span is judged at start when its arguments are known then
 * (recorded unless blocked), else at its end (recorded whatever the verdict, since it ran); its
 * outcome is recorded at end unless the call was vetoed, and observed by the guard; a run's
 * state is released when its root span ends, after the idle TTL, and by the live-run cap.
 *
 * A tool span holds its run from its start to its end: the registry is touched once per span
 * (at start; the end reaches the run through the hold), and a run with a tool span in flight is
 * never idle, however long the tool runs — its idle time starts when its last tool span ends.
 * (A tool span that never ends keeps its run until the run's root ends or the live-run cap
 * evicts it.) A run released meanwhile by its root or the cap is started afresh at the span's
 * end, as any run the span's call finds gone.
 *
 * It decides and reports; what a verdict does (span events, callbacks, metrics, aborts, or a
 * count in a report) is up to the caller.
 */
export class SpanGuard<S extends object> {
  private readonly scopes: RunScopes;
  /**
   * Asked for its `size` before each lookup: while it is empty, most spans end without one, and
   * a `get` on the empty states is work for nothing.
   */
  private readonly tools = new LiveSpanStates<ToolSpanState<S>>((span, state) => this.handBack(span, state));
  private readonly runs: RunRegistry<RunState>;
  /** One for every run. */
  private readonly policy: LoopPolicy;
  private droppedReported = false;
  /** Shared by every run (absent: results are hashed as their spans end). */
  private readonly deferred: DeferredOutcomeBudget | undefined;

  constructor(private readonly options: SpanGuardOptions<S>) {
    this.policy = Object.freeze({
      budget: options.budget,
      shadow: options.shadow,
      recoveryWindow: options.recoveryWindow,
    });
    const deferredBytes = options.deferredResultBytes ?? DEFERRED_RESULT_BYTES;
    this.deferred = deferredBytes > 0 ? new DeferredOutcomeBudget(deferredBytes, DEFERRED_RESULT_COUNT) : undefined;
    // Bounded by memory, not by a count live spans reach: a smaller cap would silently merge runs.
    this.scopes = new RunScopes(
      Math.max(1_000_000, options.maxLiveRuns * 10),
      (limit) =>
        options.logger.warn(
          `more than ${limit} live spans with a run scope: the oldest are forgotten, and children that find their parent only by span id fall back to the trace's run. Reported once.`,
        ),
      (span) => (this.tools.size > 0 ? this.heldScopeOf(span) : undefined),
      (spanId) => (this.tools.size > 0 ? this.heldScopeById(spanId) : undefined),
    );
    this.runs = new RunRegistry<RunState>(
      { idleTtlMs: options.runIdleTtlMs, maxLiveRuns: options.maxLiveRuns },
      options.clock,
      (_key, run, reason) => {
        // An evicted run may go on elsewhere: only a run that ended settles its watch.
        const settled = reason === 'capacity' ? undefined : run.loop.end();
        options.onRelease?.(run, reason, settled);
        run.loop.released();
      },
    );
  }

  /** Runs whose state is held now. */
  get liveRuns(): number {
    return this.runs.size;
  }

  /** A live run's state, without marking it active. */
  peek(runKey: string): GuardedRun | undefined {
    return this.runs.peek(runKey);
  }

  /**
   * A span starts, in its parent context (see {@link SpanParentContext}; default: none): a span
   * under a remote parent enters the trace here and scopes its id-less calls, and a span with no
   * run of its own or of a live ancestor joins the run its context carries (see
   * `RunScopes.resolve`). Returns `undefined` for a span that concerns no run (most spans): then
   * nothing is allocated, except the scope of a span entering from another process, and of a
   * span in a run its context carries.
   */
  start(
    span: S,
    ids: { readonly traceId: string; readonly spanId: string },
    context: SpanParentContext = NO_PARENT,
  ): SpanStarted<S> | undefined {
    const reading = this.options.reader.readStart(span);
    if (!reading.tool && !reading.hint && !reading.compactionRetry) {
      const { parent, run: contextRun } = context;
      if (parent) this.scopes.inherit(span, ids.spanId, parent, contextRun);
      else if (contextRun) this.scopes.join(span, ids.spanId, contextRun);
      else if (context.remoteParent === true) this.scopes.enter(span, ids);
      return undefined;
    }
    return this.startRead(span, ids, context, reading);
  }

  /**
   * {@link start} of a span its reading concerns. Kept apart so that `start` stays small enough
   * for V8 to inline into its caller, for the spans that concern nothing (most spans).
   */
  private startRead(
    span: S,
    ids: { readonly traceId: string; readonly spanId: string },
    context: SpanParentContext,
    { hint, compactionRetry, tool }: SpanReading<S>,
  ): SpanStarted<S> {
    const { parent } = context;
    const outer = tool && parent && this.tools.size > 0 ? this.tools.get(parent) : undefined;
    const inner = tool !== undefined && outer?.tool.toolName === tool.toolName;
    // A tool span's state holds its scope for its children; an inner span's stays with the run
    // scopes, which answer for it after its end too (its tokens, if it reports any).
    const scopeHeld = tool !== undefined && parent !== undefined && !inner;
    const scope = this.scopes.resolve(span, ids, context, {
      hint,
      joinsOnly: tool !== undefined || compactionRetry,
      held: scopeHeld,
    });
    if (scope.isRunRoot) this.runs.openRoot(scope.runKey);
    let run: RunState | undefined;
    let armed: SpanStarted<S>['armed'];
    if (compactionRetry) {
      run = this.touch(scope);
      const guard = run.loop.arm();
      if (guard.enabled) armed = { windowSize: guard.windowSize, message: guardArmedMessage(guard.windowSize) };
    }
    if (!tool) return { scope, run, armed };
    // One reading of the clock for the run's activity and the call's record.
    const now = this.options.clock();
    const held = this.runs.hold(scope.runKey, () => this.newRun(scope), now);
    run = held.state;
    const state: ToolSpanState<S> = {
      tool,
      scope,
      matchedAtEnd: false,
      held,
      vetoed: false,
      scopeHeld,
      handedBack: false,
      outer: inner ? outer : undefined,
    };
    this.tools.set(span, state);
    if (inner) return { scope, run, armed, sameCallAs: parent };
    const asked = run.requested?.claim(tool.toolName, tool.toolCallId);
    if (asked) {
      state.call = asked.requested.call;
      state.vetoed = asked.vetoed;
      this.noteJudgedAtStart(run, tool.toolName);
      return { scope, run, armed, tool, call: state.call, asked: { verdict: asked.verdict } };
    }
    const call = tool.callAtStart();
    if (!call) return { scope, run, armed, tool };
    state.call = call;
    this.noteJudgedAtStart(run, tool.toolName);
    const check = run.loop.judge(call, {
      toolCallId: tool.toolCallId,
      ref: this.options.keepCallRefs?.() ? ids : undefined,
      at: now,
    });
    const { recovery } = check;
    if (!check.verdict)
      return recovery ? { scope, run, armed, tool, call, recovery } : { scope, run, armed, tool, call };
    state.vetoed = check.blocked;
    const verdict: CallVerdict = { check: check as CallVerdict['check'], phase: 'start' };
    return recovery ? { scope, run, armed, tool, call, verdict, recovery } : { scope, run, armed, tool, call, verdict };
  }

  /**
   * A tool span ends (while its attributes can still be read): judges a call whose arguments
   * arrived late, records the outcome unless the call was vetoed, and lets the guard observe
   * it. A model-call (chat) span ends: see {@link finishChat}. Returns `undefined` for a span
   * that is neither.
   */
  finish(span: S): ToolSpanFinished<S> | ChatSpanFinished | undefined {
    let state = this.tools.size > 0 ? this.tools.get(span) : undefined;
    if (!state) {
      const late = this.options.reader.matchEnd(span);
      if (!late) return undefined;
      // It keeps the scope it resolved at its start, as a span that was no tool call then.
      const scope: SpanScope = this.scopes.get(span) ?? this.scopes.traceScope(traceIdOf(span));
      if (isChatCalls(late)) return this.finishChat(span, scope, late);
      state = { tool: late, scope, matchedAtEnd: true, vetoed: false, scopeHeld: false, handedBack: false };
    } else {
      this.tools.delete(span);
      if (state.handedBack) this.scopes.forget(span);
    }
    return this.finishState(span, state);
  }

  /**
   * {@link finish} of a tool span, from its state. Kept apart so that `finish` stays small
   * enough for V8 to inline, for the spans that are no tool call (most spans).
   */
  private finishState(span: S, state: ToolSpanState<S>): ToolSpanFinished<S> | undefined {
    // One reading of the clock for the run's activity and, for a call judged only now, its record.
    const now = this.options.clock();
    // The run held since the start, unless it was released meanwhile (its root ended, or the cap).
    const heldRun = state.held && this.runs.letGo(state.held, now);
    if (state.outer) {
      state.outer.innerOutcome = state.tool.outcome(span);
      return undefined;
    }
    const { tool } = state;
    const scope = state.call ? state.scope : this.settleScope(span, state.scope);
    const run = heldRun && scope.runKey === state.scope.runKey ? heldRun : this.touch(scope, now);
    let verdict: CallVerdict | undefined;
    let recovery: RecoveryResolution | undefined;
    let call = state.call;
    if (!call) {
      call = tool.callAtEnd(span);
      if (state.matchedAtEnd && this.claimJudgedAtStart(run, tool.toolName))
        return { scope, run, tool, call, matchedAtEnd: state.matchedAtEnd, sameCall: true };
      const asked = run.requested?.claim(tool.toolName, tool.toolCallId);
      if (asked) return this.completeAsked(span, scope, run, state, asked);
      const check = run.loop.judge(call, {
        toolCallId: tool.toolCallId,
        alreadyRan: true,
        ref: this.options.keepCallRefs?.() ? refOf(span) : undefined,
        at: now,
      });
      if (check.verdict) verdict = { check: check as CallVerdict['check'], phase: 'end' };
      recovery = check.recovery;
    }
    const { abort, windowClosed } = state.vetoed
      ? {}
      : run.loop.completeObserved(call, tool.toolCallId, state.innerOutcome ?? tool.outcome(span));
    const finished: ToolSpanFinished<S> = {
      scope,
      run,
      tool,
      call,
      matchedAtEnd: state.matchedAtEnd,
      verdict,
      abort,
      windowClosed,
    };
    return recovery ? { ...finished, recovery } : finished;
  }

  /**
   * A tool span recognised only as it ended stands for a call a chat span's model asked for: its
   * outcome is that call's (unless the call was vetoed); it is not judged again.
   */
  private completeAsked(
    span: S,
    scope: SpanScope,
    run: RunState,
    state: ToolSpanState<S>,
    asked: PendingCall<CallVerdict>,
  ): ToolSpanFinished<S> {
    const { call } = asked.requested;
    const { tool } = state;
    const { abort, windowClosed } = asked.vetoed
      ? {}
      : run.loop.completeObserved(call, tool.toolCallId, state.innerOutcome ?? tool.outcome(span));
    return { scope, run, tool, call, matchedAtEnd: state.matchedAtEnd, abort, windowClosed };
  }

  /**
   * A model-call (chat) span ends (while its attributes can still be read): the results it sent
   * complete the calls an earlier model call asked for, then each call its model asks for is
   * judged — before the agent runs it, so a critical verdict can stop the run — and waits for
   * its result (see {@link RequestedCalls}). Returns `undefined` for one that neither asks for
   * calls nor answers any. `scope`: the one it resolved at its start.
   */
  private finishChat(span: S, started: SpanScope, chat: ChatCallsSource<S>): ChatSpanFinished | undefined {
    const { requested, results, droppedAttributes } = chat.read(span);
    if (droppedAttributes > 0 && !this.droppedReported) {
      this.droppedReported = true;
      this.options.logger.warn(
        `a model-call span dropped ${droppedAttributes} attributes (the SDK's span attribute count limit, 128 by default): the tool calls in its messages may be missing, so loops can go undetected. Raise the limit (spanLimits.attributeCountLimit, or OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT); instrumentations that flatten every message into attributes (OpenInference, older OpenLLMetry) need several per message. Reported once.`,
      );
    }
    const scope = this.settleScope(span, started);
    const pending = this.runs.peek(scope.runKey)?.requested;
    if (requested.length === 0 && (pending === undefined || pending.size === 0)) return undefined;
    const now = this.options.clock();
    const run = this.touch(scope, now);
    const completed: RequestedCallCompleted[] = [];
    for (const { call, result } of run.requested?.answer(results) ?? []) {
      if (call.vetoed) continue;
      const { toolName, toolCallId } = call.requested;
      const observed = run.loop.completeObserved(call.requested.call, toolCallId, call.requested.outcome(result));
      completed.push({ toolName, toolCallId, ...observed });
    }
    const judged: RequestedCallJudged[] = [];
    const ref = this.options.keepCallRefs?.() ? refOf(span) : undefined;
    for (const asked of requested) {
      const { toolName, toolCallId } = asked;
      if (run.requested?.hasToolSpans(toolName)) continue;
      const check = run.loop.judge(asked.call, { toolCallId, ref, at: now });
      const verdict: CallVerdict | undefined = check.verdict
        ? { check: check as CallVerdict['check'], phase: 'start' }
        : undefined;
      (run.requested ??= new RequestedCalls()).add({ requested: asked, vetoed: check.blocked, verdict });
      judged.push({ toolName, toolCallId, verdict, recovery: check.recovery });
    }
    return { scope, run, completed, judged };
  }

  /**
   * Whether a span's end may close anything: while no live span holds a scope and no run is
   * live, {@link close} returns `undefined`, and its arguments need not be read.
   */
  get mayClose(): boolean {
    return this.scopes.anyUnclosed || this.runs.size > 0;
  }

  /**
   * A span ended: forgets its scope and returns the run key when it was the last open root of
   * its run, whose state is then released (`root-ended`). `rootTraceId`: the span's trace id
   * when it has no parent (a trace's root closes the run keyed by its trace id); `undefined` for
   * a span with a parent, local or remote.
   */
  close(span: S, rootTraceId?: string): string | undefined {
    const closed = this.scopes.closedBy(span, this.runs.size > 0 ? rootTraceId : undefined);
    return closed !== undefined && this.runs.closeRoot(closed) ? closed : undefined;
  }

  /**
   * The live run a span belongs to through its scope (e.g. a chat span under a run's agent
   * span), without marking it active; `undefined` once the span's scope is forgotten.
   */
  runOf(span: S): GuardedRun | undefined {
    const scope = this.scopes.get(span);
    return scope ? this.runs.peek(scope.runKey) : undefined;
  }

  /**
   * A span that is no tool call ended with token usage (a model call): the tokens are charged to
   * the live run it belongs to, which is returned (`undefined` when it belongs to none, or its
   * run has no state yet: a run's state starts with its first tool call, and tokens spent before
   * it cannot be inside a loop).
   */
  spend(span: S, tokens: number): GuardedRun | undefined {
    const run = this.runOf(span);
    run?.loop.spend(tokens);
    return run;
  }

  /** The scope a live tool span's state holds for its children (see `RunScopes.resolve`'s `held`). */
  private heldScopeOf(span: object): SpanScope | undefined {
    const state = this.tools.get(span);
    return state?.scopeHeld ? state.scope : undefined;
  }

  /**
   * {@link heldScopeOf} by span id, among the newest tool spans (the others were handed back);
   * as the run scopes' span-id map, only a scope worth passing on (`passesOn`).
   */
  private heldScopeById(spanId: string): SpanScope | undefined {
    return this.tools.findRecent(
      (span, state) => state.scopeHeld && spanIdOf(span) === spanId && passesOn(state.scope, traceIdOf(span)),
    )?.scope;
  }

  /** A tool span's state left the newest: the run scopes answer for its held scope by span id now. */
  private handBack(span: object, state: ToolSpanState<S>): void {
    const spanId = state.scopeHeld && passesOn(state.scope, traceIdOf(span)) ? spanIdOf(span) : undefined;
    if (spanId === undefined) return;
    this.scopes.rememberById(spanId, state.scope);
    state.handedBack = true;
  }

  /** Releases every live run. */
  releaseAll(reason: RunReleaseReason): void {
    this.runs.clear(reason);
  }

  /**
   * The run of a call judged at its end, settled from the span's own attributes then: an
   * instrumentation that sets every attribute after `onStart` (OpenInference's `session.id`)
   * names the run only now. A run the span already belongs to through its ancestors (`traceRun`)
   * stays its run.
   */
  private settleScope(span: S, scope: SpanScope): SpanScope {
    if (scope.runKey !== traceRunKey(traceIdOf(span))) return scope;
    const hint = this.options.reader.hintAtEnd?.(span);
    if (hint?.runId === undefined) return scope;
    return {
      runKey: explicitRunKey(hint.runId),
      runId: hint.runId,
      agentId: hint.agentId ?? scope.agentId,
      isRunRoot: false,
    };
  }

  private noteJudgedAtStart(run: RunState, toolName: string): void {
    const counts = run.unclaimed ?? [];
    for (let i = 0; i < counts.length; i += 2) {
      if (counts[i] === toolName) {
        counts[i + 1] = (counts[i + 1] as number) + 1;
        return;
      }
    }
    const grown = new Array<string | number>(counts.length + 2);
    for (let i = 0; i < counts.length; i += 1) grown[i] = counts[i];
    grown[counts.length] = toolName;
    grown[counts.length + 1] = 1;
    run.unclaimed = grown;
  }

  /**
   * Whether a call of `toolName` in `run` was judged at start and not yet claimed: the span
   * ending now is the instrumentation's span around it (the clocks of the two spans may differ,
   * so their timestamps cannot tell).
   */
  private claimJudgedAtStart(run: RunState, toolName: string): boolean {
    const counts = run.unclaimed ?? [];
    for (let i = 0; i < counts.length; i += 2) {
      if (counts[i] !== toolName) continue;
      const count = counts[i + 1] as number;
      if (count === 0) return false;
      counts[i + 1] = count - 1;
      return true;
    }
    return false;
  }

  /** `reading`: the clock's, when the caller has just taken one. */
  private touch(scope: SpanScope, reading?: number): RunState {
    return this.runs.touch(scope.runKey, () => this.newRun(scope), reading);
  }

  private newRun(scope: SpanScope): RunState {
    return {
      runKey: scope.runKey,
      runId: scope.runId,
      agentId: scope.agentId,
      loop: new LoopRun({
        config: this.options.configFor(scope.agentId),
        runId: scope.runId,
        logger: this.options.logger,
        now: this.options.clock,
        policy: this.policy,
        deferredOutcomes: this.deferred,
      }),
      unclaimed: undefined,
      requested: undefined,
    };
  }
}

/** A span's trace and span ids, when it has a span context (live spans and replayed ones do). */
function refOf(span: object): CallRef | undefined {
  const ids = (span as { spanContext?: () => { traceId: string; spanId: string } }).spanContext?.();
  return ids ? { traceId: ids.traceId, spanId: ids.spanId } : undefined;
}

/** The trace id of a span (live spans and replayed ones have `spanContext()`), the run of a span in no other scope. */
function traceIdOf(span: object): string {
  return (span as { spanContext?: () => { traceId: string } }).spanContext?.().traceId ?? '';
}
