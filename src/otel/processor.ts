import { diag, trace, type Attributes, type Context, type Counter, type DiagLogger } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AgentConfigResolver } from '../config/agent-config-resolver.js';
import { loadConfigFile } from '../config/load-file.js';
import type { ResolvedLoopDetectionConfig, ToolLoopGuardConfig } from '../config/types.js';
import { CompactionLoopPersistedError } from '../engine/errors/compaction-loop-persisted-error.js';
import { createDigester, type Digester } from '../engine/hashing/digest.js';
import { LoopRun, type GuardAbort } from '../engine/loop-run.js';
import { ToolLoopBlockedError } from '../engine/errors/tool-loop-blocked-error.js';
import type { LoopVerdict, ToolCallSignature } from '../engine/types.js';
import * as sc from '../semconv.js';
import { PACKAGE_NAME } from '../version.js';
import type { ToolCallStart, ToolSpanAdapter } from '../spans/adapters/adapter.js';
import { setToolLoopVerdict } from './loop-event.js';
import { loopEventAttributes, loopEventLabels, type LoopEventFields } from './event-attributes.js';
import { createLoopEventCounter } from './metrics.js';
import {
  describeAtEnd,
  describeToolSpanCall,
  hashToolSpanOutcome,
  knownAtStart,
  matchSpanEnd,
  NOTHING_TO_READ,
  readSpanStart,
  type DescribedCall,
} from '../spans/span-reading.js';
import { resolveProcessorOptions, type ResolvedProcessorOptions, type ToolLoopSpanProcessorOptions } from './options.js';
import { abortRegisteredRun } from './run-abort-registry.js';
import { RunRegistry, type RunReleaseReason } from '../spans/run-registry.js';
import { RunScopes, type SpanScope } from '../spans/run-scope.js';
import { shareDigester } from './shared-digester.js';
import { SpanTriggers } from '../spans/span-triggers.js';
import { setBounded } from '../util/bounded-map.js';

/** A run's detection state. */
interface RunState {
  readonly runKey: string;
  readonly loop: LoopRun;
  abortReason?: Error;
}

/** A tool span between its start and its end. */
interface ToolSpanState {
  readonly adapter: ToolSpanAdapter;
  readonly start: ToolCallStart;
  readonly scope: SpanScope;
  readonly config: ResolvedLoopDetectionConfig;
  call?: ToolCallSignature;
  params?: unknown;
  blocked: boolean;
}

/** Counters of released runs, for operators and tests. */
export interface ToolLoopProcessorStats {
  /** Runs whose state is held now. */
  readonly liveRuns: number;
  /** Runs released, by reason. */
  readonly releasedRuns: Readonly<Record<RunReleaseReason, number>>;
}

/**
 * An OpenTelemetry `SpanProcessor` that runs OpenClaw's tool-loop detection on tool-call
 * spans (DESIGN §2–§5). Create it with {@link ToolLoopSpanProcessor.create} and register it
 * **before** exporting processors so that its events are exported.
 *
 * Hooks never throw into the host; failures and throwing callbacks are reported through `diag`.
 */
export class ToolLoopSpanProcessor implements SpanProcessor {
  private readonly log: DiagLogger;
  private readonly scopes = new RunScopes();
  private readonly triggers: SpanTriggers;
  private readonly toolSpans = new WeakMap<object, ToolSpanState>();
  /**
   * `runSignal` controllers by run key. Kept apart from run states so that a signal handed out
   * before an idle or capacity release still aborts when the run resumes; dropped when the run's
   * root span ends, and capped at `maxLiveRuns`.
   */
  private readonly controllers = new Map<string, AbortController>();
  private readonly runs: RunRegistry<RunState>;
  private readonly released: Record<RunReleaseReason, number> = { 'root-ended': 0, idle: 0, capacity: 0, shutdown: 0 };
  private readonly counter: Counter<Attributes>;
  private capacityReported = false;
  /** Set by the first `onEnding` call: the SDK finishes tool spans there (SDK >= 2.3). */
  private sdkCallsOnEnding = false;

  private constructor(
    private readonly options: ResolvedProcessorOptions,
    private readonly resolver: AgentConfigResolver,
    private readonly digester: Digester,
    counter: Counter<Attributes>,
    log: DiagLogger,
  ) {
    this.log = log;
    this.counter = counter;
    this.triggers = SpanTriggers.of(options.adapters);
    this.runs = new RunRegistry<RunState>({ idleTtlMs: options.runIdleTtlMs, maxLiveRuns: options.maxLiveRuns }, options.clock, (key, state, reason) => this.onRelease(key, state, reason));
  }

  /**
   * Creates a processor. Asynchronous because xxhash-wasm initialises asynchronously and a
   * config file may be read; the processor is fully usable once the promise resolves.
   * Rejects with a `ConfigFileError` when an explicitly named config file cannot be used.
   */
  static async create(options: ToolLoopSpanProcessorOptions = {}): Promise<ToolLoopSpanProcessor> {
    const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });
    const resolved = resolveProcessorOptions(options, process.env, log);
    let config: ToolLoopGuardConfig | undefined = options.config;
    if (config === undefined && resolved.configFile) {
      // Its warnings are the resolver's to report (it validates whatever config it gets).
      config = (await loadConfigFile(resolved.configFile)).config;
    }
    const digester = await createDigester({ seed: resolved.hashSeed });
    shareDigester(digester);
    return new ToolLoopSpanProcessor(
      resolved,
      new AgentConfigResolver(config, log, options.config === undefined ? resolved.configFile : undefined),
      digester,
      createLoopEventCounter(options.meterProvider),
      log,
    );
  }

  /**
   * The abort signal of a run, keyed by its resolved run scope (a `tool_loop.run_id`, or an
   * adapter's run id such as `ai.telemetry.metadata.runId`). It is aborted with a
   * `CompactionLoopPersistedError` when the post-compaction guard fires and, with
   * `abortOnCritical`, with a `ToolLoopBlockedError` on a critical verdict.
   */
  runSignal(runId: string): AbortSignal {
    const key = runId.trim();
    let controller = this.controllers.get(key);
    if (!controller) {
      controller = new AbortController();
      setBounded(this.controllers, key, controller, this.options.maxLiveRuns);
    }
    const reason = this.runs.peek(key)?.abortReason;
    if (reason && !controller.signal.aborted) controller.abort(reason);
    return controller.signal;
  }

  /** Live-run and release counters. */
  getStats(): ToolLoopProcessorStats {
    return { liveRuns: this.runs.size, releasedRuns: { ...this.released } };
  }

  /**
   * Recognises tool spans and judges those whose arguments are known (adds `tool_loop.warning` /
   * `tool_loop.blocked`, calls `onLoopEvent`); resolves run scopes; arms the guard on
   * `compaction.retry` spans. Never throws.
   */
  onStart(span: Span, parentContext: Context): void {
    try {
      this.handleStart(span, parentContext);
    } catch (error) {
      this.log.error(`onStart failed: ${describeError(error)}`);
    }
  }

  /**
   * While the span is still writable (SDK >= 2.3): judges tool spans whose arguments arrived
   * late, records outcomes, feeds the post-compaction guard (`tool_loop.aborted`, `onAbort`),
   * and applies `redactContent`. Never throws.
   */
  onEnding(span: Span): void {
    this.sdkCallsOnEnding = true;
    let state: ToolSpanState | undefined;
    try {
      state = this.toolSpans.get(span) ?? this.matchAtEnd(span);
      if (state) this.finishToolSpan(span, state, true);
    } catch (error) {
      this.log.error(`onEnding failed: ${describeError(error)}`);
    } finally {
      if (this.options.redactContent) this.redact(span, state);
    }
  }

  /**
   * Records outcomes on SDKs without `onEnding` (no annotations: the span is read-only), and
   * releases a run's state when the span that opened it ends. Never throws.
   */
  onEnd(span: ReadableSpan): void {
    try {
      // With onEnding, every tool span was finished there; only older SDKs need matching here.
      const state = this.sdkCallsOnEnding ? undefined : (this.toolSpans.get(span) ?? this.matchAtEnd(span));
      // Older SDKs have no onEnding: the span is read-only here, so record without annotating.
      if (state) this.finishToolSpan(span, state, false);
      const closed = this.scopes.closedBy(span, span.spanContext().traceId, span.parentSpanContext !== undefined);
      // The run and its runSignal end with the last of its root spans (two may share a run id).
      if (closed !== undefined && this.runs.closeRoot(closed) && this.controllers.size > 0) this.controllers.delete(closed);
    } catch (error) {
      this.log.error(`onEnd failed: ${describeError(error)}`);
    }
  }

  /** Nothing is buffered here: resolves at once. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Releases every run's state; resolves at once. */
  shutdown(): Promise<void> {
    this.runs.clear('shutdown');
    return Promise.resolve();
  }

  private handleStart(span: Span, parentContext: Context): void {
    const { adapter, start, hint, compactionRetry } = this.triggers.mayConcernAtStart(span) ? readSpanStart(this.options.adapters, span) : NOTHING_TO_READ;
    const parentSpan = trace.getSpan(parentContext);
    const parent = parentSpan && !parentSpan.spanContext().isRemote ? parentSpan : undefined;
    if (!start && !hint && !compactionRetry) {
      if (parent) this.scopes.inherit(span, span.spanContext().spanId, parent);
      return;
    }
    const { traceId, spanId } = span.spanContext();
    const scope = this.scopes.resolve(span, { traceId, spanId }, hint, parent, start !== undefined || compactionRetry);
    if (scope.isRunRoot) this.runs.openRoot(scope.runKey);

    if (compactionRetry) this.armGuard(span, scope);
    if (!start || !adapter) return;

    const config = this.resolver.forAgent(scope.agentId);
    const run = this.runs.touch(scope.runKey, () => this.createRun(scope.runKey));
    const state: ToolSpanState = { adapter, start, scope, config, blocked: false };
    this.toolSpans.set(span, state);
    if (knownAtStart(start)) {
      this.describe(state, describeToolSpanCall(this.digester, start.toolName, start.argsHash, start.knownPoll, start.arguments));
      this.evaluate(span, state, run, true, false);
    }
  }

  /** A tool span recognised only at end (adapters' `matchEnd`); it keeps the scope resolved at its start. */
  private matchAtEnd(span: Span | ReadableSpan): ToolSpanState | undefined {
    const match = this.triggers.mayConcernAtEnd(span) ? matchSpanEnd(this.options.adapters, span) : undefined;
    if (!match) return undefined;
    const scope: SpanScope = this.scopes.get(span) ?? { runKey: span.spanContext().traceId, isRunRoot: false };
    const state: ToolSpanState = { ...match, scope, config: this.resolver.forAgent(scope.agentId), blocked: false };
    this.toolSpans.set(span, state);
    return state;
  }

  private describe(state: ToolSpanState, described: DescribedCall): void {
    state.call = { ...described.identity, runId: state.scope.runKey };
    state.params = described.params;
  }

  /** Judges the call; `alreadyRan` for spans judged at their end, whose calls cannot be vetoed. */
  private evaluate(span: Span, state: ToolSpanState, run: RunState, annotate: boolean, alreadyRan: boolean): void {
    const call = state.call!;
    const check = run.loop.judge(call, state.start.toolCallId, state.config, alreadyRan);
    const { verdict } = check;
    if (!verdict) return;
    const error = check.blocked ? new ToolLoopBlockedError(verdict.message, { ...verdict, toolName: call.toolName }) : undefined;
    setToolLoopVerdict(span, { level: verdict.level, detector: verdict.detector, count: verdict.count, message: verdict.message, emitted: check.emit, error });
    if (annotate) span.setAttribute(sc.ATTR_TOOL_LOOP_VERDICT, verdict.level === sc.LEVEL_CRITICAL ? sc.VERDICT_CRITICAL : sc.VERDICT_WARNING);
    if (check.emit) this.emitVerdict(span, state, verdict, annotate);
    if (error) {
      state.blocked = !alreadyRan;
      if (this.options.abortOnCritical) this.abortRun(run, error);
    }
  }

  private emitVerdict(span: Span, state: ToolSpanState, verdict: LoopVerdict, annotate: boolean): void {
    const critical = verdict.level === sc.LEVEL_CRITICAL;
    this.emit(
      span,
      critical ? sc.EVENT_TOOL_LOOP_BLOCKED : sc.EVENT_TOOL_LOOP_WARNING,
      {
        detector: verdict.detector,
        level: verdict.level,
        action: critical ? sc.ACTION_BLOCK : sc.ACTION_WARN,
        count: verdict.count,
        message: verdict.message,
        runId: state.scope.runKey,
        toolName: state.start.toolName,
        agentId: state.scope.agentId,
      },
      verdict.pairedToolName === undefined
        ? { [sc.ATTR_TOOL_LOOP_WARNING_KEY]: verdict.warningKey }
        : { [sc.ATTR_TOOL_LOOP_WARNING_KEY]: verdict.warningKey, [sc.ATTR_TOOL_LOOP_PAIRED_TOOL]: verdict.pairedToolName },
      annotate,
    );
    this.invoke('onLoopEvent', {
      level: verdict.level,
      detector: verdict.detector,
      count: verdict.count,
      message: verdict.message,
      toolName: state.start.toolName,
      runId: state.scope.runKey,
      warningKey: verdict.warningKey,
      ...callbackIds(span, state.scope),
      ...(verdict.pairedToolName !== undefined ? { pairedToolName: verdict.pairedToolName } : {}),
    });
  }

  private finishToolSpan(span: Span | ReadableSpan, state: ToolSpanState, annotate: boolean): void {
    const end = state.adapter.readEnd(span);
    const run = this.runs.touch(state.scope.runKey, () => this.createRun(state.scope.runKey));
    if (!state.call) {
      this.describe(state, describeAtEnd(this.digester, state.start, end));
      this.evaluate(span as Span, state, run, annotate, true);
    }
    if (!state.blocked) {
      const outcome = hashToolSpanOutcome(this.digester, state.start.toolName, state.params, end);
      const abort = run.loop.complete(state.call!, state.start.toolCallId, outcome, state.config);
      if (abort) this.abortOnGuard(span as Span, state, run, abort, annotate);
    }
  }

  /**
   * `redactContent`: removes raw tool content after hashing, before export — the GenAI content
   * attributes on any span, and the content attributes of the adapter that matched it. Runs
   * even when detection failed, so content is never exported by mistake.
   */
  private redact(span: Span, state: ToolSpanState | undefined): void {
    try {
      const attributes = span.attributes as Record<string, unknown>;
      delete attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS];
      delete attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT];
      for (const key of state?.adapter.contentAttributes ?? []) delete attributes[key];
    } catch (error) {
      this.log.error(`redaction failed: ${describeError(error)}`);
    }
  }

  private abortOnGuard(span: Span, state: ToolSpanState, run: RunState, verdict: GuardAbort, annotate: boolean): void {
    const error = CompactionLoopPersistedError.fromVerdict(verdict);
    if (annotate) span.setAttribute(sc.ATTR_TOOL_LOOP_VERDICT, sc.VERDICT_ABORTED);
    this.emit(
      span,
      sc.EVENT_TOOL_LOOP_ABORTED,
      {
        detector: verdict.detector,
        level: sc.LEVEL_CRITICAL,
        action: sc.ACTION_ABORT,
        count: verdict.count,
        message: verdict.message,
        runId: state.scope.runKey,
        toolName: verdict.toolName,
        agentId: state.scope.agentId,
      },
      { [sc.ATTR_ERROR_TYPE]: sc.COMPACTION_LOOP_PERSISTED },
      annotate,
    );
    this.invoke('onAbort', {
      code: sc.COMPACTION_LOOP_PERSISTED,
      detector: sc.COMPACTION_LOOP_PERSISTED,
      toolName: verdict.toolName,
      count: verdict.count,
      message: verdict.message,
      runId: state.scope.runKey,
      ...callbackIds(span, state.scope),
      error,
    });
    this.abortRun(run, error);
  }

  private armGuard(span: Span, scope: SpanScope): void {
    const config = this.resolver.forAgent(scope.agentId);
    const run = this.runs.touch(scope.runKey, () => this.createRun(scope.runKey));
    const guard = run.loop.arm(config);
    if (!guard.enabled) return;
    this.emit(
      span,
      sc.EVENT_TOOL_LOOP_GUARD_ARMED,
      {
        detector: sc.COMPACTION_LOOP_PERSISTED,
        level: sc.LEVEL_WARNING,
        action: sc.ACTION_ARM,
        count: 0,
        message: `post-compaction guard armed for ${guard.windowSize} attempts`,
        runId: scope.runKey,
        toolName: '',
        agentId: scope.agentId,
      },
      { [sc.ATTR_TOOL_LOOP_WINDOW_SIZE]: guard.windowSize },
      true,
    );
  }

  private createRun(runKey: string): RunState {
    return { runKey, loop: new LoopRun({ logger: this.log, now: this.options.clock }) };
  }

  private abortRun(run: RunState, reason: Error): void {
    run.abortReason ??= reason;
    const controller = this.controllers.get(run.runKey);
    if (controller && !controller.signal.aborted) controller.abort(run.abortReason);
    abortRegisteredRun(run.runKey, run.abortReason);
  }

  private onRelease(key: string, _state: RunState, reason: RunReleaseReason): void {
    this.released[reason] += 1;
    if (reason === 'shutdown') this.controllers.delete(key);
    if (reason === 'capacity' && !this.capacityReported) {
      this.capacityReported = true;
      this.log.warn(
        `more than ${this.options.maxLiveRuns} live runs: evicting the least recently active (their loop history is dropped). Raise maxLiveRuns if this is expected. Reported once; see getStats().`,
      );
    }
  }

  /** A loop event: added to the span when it is still writable, and counted in the metric. */
  private emit(span: Span, name: string, fields: LoopEventFields, extra: Attributes, annotate: boolean): void {
    if (annotate) span.addEvent(name, loopEventAttributes(fields, extra));
    this.counter.add(1, loopEventLabels(fields));
  }

  private invoke<K extends 'onLoopEvent' | 'onAbort'>(key: K, event: Parameters<NonNullable<ToolLoopSpanProcessorOptions[K]>>[0]): void {
    const callback = this.options[key] as ((event: unknown) => void) | undefined;
    if (!callback) return;
    try {
      callback(event);
    } catch (error) {
      this.log.error(`${key} callback threw: ${describeError(error)}`);
    }
  }
}

/** The span and agent a callback event refers to. */
function callbackIds(span: Span, scope: SpanScope): { traceId: string; spanId: string; agentId?: string } {
  const { traceId, spanId } = span.spanContext();
  return scope.agentId === undefined ? { traceId, spanId } : { traceId, spanId, agentId: scope.agentId };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return 'unprintable error';
  }
}

