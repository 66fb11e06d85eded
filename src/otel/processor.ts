import { diag, type Context, type DiagLogger, type Span as ApiSpan } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AgentConfigResolver } from '../config/agent-config-resolver.js';
import { loadConfigFile } from '../config/load-file.js';
import type { ToolLoopGuardConfig } from '../config/types.js';
import { createDigester, type Digester } from '../engine/hashing/digest.js';
import { hashToolOutcome } from '../engine/hashing/outcome-hash.js';
import type { RecoveryCounts, RecoveryResolution } from '../engine/recovery/recovery-watch.js';
import { describeToolCall } from '../engine/hashing/tool-call.js';
import * as sc from '../semconv.js';
import type { RunReleaseReason } from '../spans/run-registry.js';
import { runIdOf } from '../spans/run-id.js';
import { explicitRunKey, traceRunKey } from '../spans/run-scope.js';
import {
  SpanGuard,
  type ChatSpanFinished,
  type GuardedRun,
  type SpanStarted,
  type ToolSpanFinished,
} from '../spans/span-guard.js';
import { AdapterSpanReader, type ToolCallSource } from '../spans/span-reading.js';
import { describeValue } from '../util/describe-value.js';
import { PACKAGE_NAME } from '../version.js';
import { ContentRedaction } from './content-redaction.js';
import { redactingLogger } from './unknown-tool-redaction.js';
import { annotatedView, DeferredAnnotations } from './deferred-annotations.js';
import { EvidenceSpans } from './evidence-spans.js';
import type { HelperBridge } from './helper-bridge.js';
import { EndingShim } from './ending-shim.js';
import { describeError } from '../util/describe-error.js';
import { LoopEventEmitter, type EmitterCounters, type EventSite } from './loop-event-emitter.js';
import { getToolLoopVerdict, recordToolLoopVerdict } from './loop-event.js';
import { createLoopEventCounter, createRecoveryCounter } from './metrics.js';
import { modelCallTokens } from './model-usage.js';
import { PipelineChecks } from './pipeline-checks.js';
import {
  readProcessorOptions,
  resolveProcessorOptions,
  type ResolvedProcessorOptions,
  type ToolLoopSpanProcessorOptions,
} from './options.js';
import { ParentContexts } from './parent-context.js';
import { RunSignals } from './run-signals.js';

/** Counters of released runs, for operators and tests. */
export interface ToolLoopProcessorStats {
  /** Runs whose state is held now. */
  readonly liveRuns: number;
  /** Runs released, by reason. */
  readonly releasedRuns: Readonly<Record<RunReleaseReason, number>>;
  /** Recovery outcomes of every run so far (see the `recoveryWindow` option; per run: `LoopRun.recovery`). */
  readonly recovery: RecoveryCounts;
}

/**
 * An OpenTelemetry `SpanProcessor` that runs OpenClaw's tool-loop detection on tool-call
 * spans. Create it with {@link ToolLoopSpanProcessor.create} and register it **before**
 * exporting processors so that its events are exported.
 *
 * Its hooks hand each span to the span guard (the detection lifecycle, shared with the offline
 * analyzer) and what the guard decides to one emitter (span events, metrics, callbacks, aborts).
 * Hooks never throw into the host; failures and throwing callbacks are reported through `diag`.
 */
export class ToolLoopSpanProcessor implements SpanProcessor {
  private readonly log: DiagLogger;
  private readonly guard: SpanGuard<Span | ReadableSpan>;
  private readonly signals: RunSignals;
  private readonly emitter: LoopEventEmitter;
  /** What `redactContent` removes from each span. */
  private readonly redaction: ContentRedaction;
  /** What this processor offers the helpers whose spans it sees start. */
  private readonly bridge: HelperBridge;
  private readonly released: Record<RunReleaseReason, number> = { 'root-ended': 0, idle: 0, capacity: 0, shutdown: 0 };
  private capacityReported = false;
  /** Set by the first `onEnding` call: the SDK finishes tool spans there (SDK >= 2.3). */
  private sdkCallsOnEnding = false;
  /** Until the SDK is seen calling `onEnding`, spans get their ending step from their own `end`. */
  private readonly endingShim = new EndingShim();
  private readonly ending = (span: Span): void => this.endSpan(span);
  /** What could not be written to spans ended without `onEnding`, for `wrapExporter`. */
  private readonly deferred = new DeferredAnnotations();
  /** Set once an exporter was wrapped with `wrapExporter` for this processor. */
  private exportsWrapped = false;
  private noOnEndingReported = false;
  private readonly checks: PipelineChecks;
  /** Set by `shutdown()`: later hooks do nothing. */
  private isShutDown = false;
  /** The last context a span started in, and what it holds. */
  private readonly parentContexts = new ParentContexts();
  private readonly recovered = { recovered: 0, repeated: 0, runEnded: 0 };

  private constructor(
    private readonly options: ResolvedProcessorOptions,
    resolver: AgentConfigResolver,
    digester: Digester,
    counters: EmitterCounters,
    log: DiagLogger,
  ) {
    this.log = log;
    this.signals = new RunSignals(options.maxLiveRuns);
    this.checks = new PipelineChecks(log);
    const evidence = new EvidenceSpans(options.evidenceSpans, options.tracerProvider, log);
    this.emitter = new LoopEventEmitter(options, {
      counters,
      log,
      signals: this.signals,
      digestText: (text) => digester.digestText(text),
      evidence,
    });
    this.redaction = ContentRedaction.of(options.adapters);
    this.guard = new SpanGuard<Span | ReadableSpan>({
      reader: new AdapterSpanReader(options.adapters, digester),
      configFor: (agentId) => resolver.forAgent(agentId),
      logger: options.redactContent ? redactingLogger(log, (text) => digester.digestText(text)) : log,
      clock: options.clock,
      runIdleTtlMs: options.runIdleTtlMs,
      maxLiveRuns: options.maxLiveRuns,
      onRelease: (run, reason, settled) => this.onRelease(run, reason, settled),
      budget: options.budget,
      shadow: options.mode === 'shadow',
      recoveryWindow: options.recoveryWindow,
      keepCallRefs: () => evidence.available(),
    });
    this.bridge = {
      describeCall: (toolName, params) => describeToolCall(digester, toolName, params),
      hashOutcome: (outcome) => hashToolOutcome(digester, outcome),
      registerRun: (runId, controller) => this.signals.register(explicitRunKey(runId), controller),
    };
  }

  /**
   * Creates a processor. Asynchronous because xxhash-wasm initialises asynchronously and a
   * config file may be read; the processor is fully usable once the promise resolves.
   * Rejects with a `ConfigFileError` when an explicitly named config file cannot be used.
   */
  static async create(given: ToolLoopSpanProcessorOptions = {}): Promise<ToolLoopSpanProcessor> {
    const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });
    const options = readProcessorOptions(given, log);
    const resolved = resolveProcessorOptions(options, process.env, log);
    let config: ToolLoopGuardConfig | undefined = options.config;
    if (config === undefined && resolved.configFile) {
      // Its warnings are the resolver's to report (it validates whatever config it gets).
      config = (await loadConfigFile(resolved.configFile)).config;
    }
    const digester = await createDigester({ seed: resolved.hashSeed });
    return new ToolLoopSpanProcessor(
      resolved,
      new AgentConfigResolver(config, log, options.config === undefined ? resolved.configFile : undefined),
      digester,
      {
        events: createLoopEventCounter(options.meterProvider, log),
        recovery: createRecoveryCounter(options.meterProvider, log),
      },
      log,
    );
  }

  /**
   * The abort signal of a run, keyed by its resolved run scope (a `tool_loop.run_id`, or an
   * adapter's run id such as `ai.telemetry.metadata.runId`). It is aborted with a
   * `CompactionLoopPersistedError` when the post-compaction guard fires and, with
   * `abortOnCritical`, with a `ToolLoopBlockedError` on a critical verdict. The id is read as
   * the adapters read run ids: a string, trimmed, or a finite number (`runSignal(42)` is the run
   * of an AI SDK `metadata.runId` of `42` or `'42'`). Anything else, or a blank string, gets a
   * signal that never aborts and a `diag` warning; so does every call after `shutdown()`.
   */
  runSignal(runId: string | number): AbortSignal {
    if (this.isShutDown) return new AbortController().signal;
    const id = runIdOf(runId);
    if (id === undefined) {
      this.log.warn(
        `runSignal(${describeValue(runId)}): a run id is a non-blank string or a finite number; this signal never aborts`,
      );
      return new AbortController().signal;
    }
    const key = explicitRunKey(id);
    return this.signals.signal(key, this.guard.peek(key)?.abortReason);
  }

  /** Live-run and release counters. */
  getStats(): ToolLoopProcessorStats {
    return { liveRuns: this.guard.liveRuns, releasedRuns: { ...this.released }, recovery: { ...this.recovered } };
  }

  /**
   * Recognises tool spans and judges those whose arguments are known (adds `tool_loop.warning` /
   * `tool_loop.blocked`, calls `onLoopEvent`); resolves run scopes; arms the guard on
   * `compaction.retry` spans; answers the helpers' requests. Never throws.
   */
  onStart(span: Span, parentContext: Context): void {
    if (this.isShutDown) return;
    // Every span, evidence spans too: any span may carry content to redact.
    if (!this.sdkCallsOnEnding) this.endingShim.install(span, this.ending);
    const reading = this.parentContexts.read(parentContext);
    // An evidence span (ours or another processor's) is about a loop, never part of one.
    if (reading.evidence) return;
    try {
      reading.request?.answer(span, this.bridge);
      const started = this.guard.start(span, span.spanContext(), reading);
      if (started) this.emitStarted(span, reading.parent, started);
    } catch (error) {
      this.log.error(`onStart failed: ${describeError(error)}`);
    }
  }

  /**
   * {@link onStart} of a span that concerns a run: emits what the guard decided. Kept apart so
   * that `onStart` stays small enough for V8 to inline, for the spans that concern nothing.
   */
  private emitStarted(span: Span, parent: ApiSpan | undefined, started: SpanStarted<Span | ReadableSpan>): void {
    if (started.tool)
      this.checks.toolSpan(parent === undefined && started.scope.runKey === traceRunKey(span.spanContext().traceId));
    if (started.armed) this.emitter.armed(span, started.scope, started.armed);
    // The inner span of a call already judged: the helper inside reads the call's verdict from it.
    const outerVerdict = started.sameCallAs && getToolLoopVerdict(started.sameCallAs);
    if (outerVerdict) recordToolLoopVerdict(span, outerVerdict);
    if (started.asked?.verdict) this.emitter.takenOver(span, started.tool!.toolName, started.asked.verdict);
    if (started.recovery) this.settled(started.recovery, started.scope.agentId);
    if (started.verdict)
      this.emitter.verdict(
        { span, scope: started.scope, run: started.run!, writable: true },
        { toolName: started.tool!.toolName, verdict: started.verdict, toolCallId: started.tool!.toolCallId },
      );
  }

  /**
   * While the span is still writable: judges tool spans whose arguments arrived late, records
   * outcomes, feeds the post-compaction guard (`tool_loop.aborted`, `onAbort`), and applies
   * `redactContent`. SDKs before 2.3 never call it: there each span runs this step from its own
   * `end` (see {@link EndingShim}). Never throws.
   */
  onEnding(span: Span): void {
    if (this.isShutDown) return;
    this.sdkCallsOnEnding = true;
    if (!this.endingShim.handled(span)) this.endSpan(span);
  }

  /**
   * The ending step ({@link onEnding}), from the SDK or, on SDKs that do not call `onEnding`,
   * from the span's own `end` (see {@link EndingShim}).
   */
  private endSpan(span: Span): void {
    if (this.isShutDown) return;
    let tool: ToolCallSource | undefined;
    try {
      tool = this.finish(span, span);
    } catch (error) {
      this.log.error(`onEnding failed: ${describeError(error)}`);
    } finally {
      if (this.options.redactContent) this.redact(span, tool);
    }
  }

  /**
   * Releases a run's state when the span that opened it ends. A span that had no ending step
   * (its SDK has no `onEnding` and the span could not take its own `end`) is finished here,
   * read-only: its annotations reach the export only through {@link wrapExporter}. Never throws.
   */
  onEnd(span: ReadableSpan): void {
    if (this.isShutDown) return;
    try {
      if (!this.sdkCallsOnEnding && !this.endingShim.handled(span)) this.finishWithoutOnEnding(span);
      // The run and its runSignal end with the last of its root spans (two may share a run id).
      const closed = this.guard.mayClose
        ? this.guard.close(span, hasParent(span) ? undefined : span.spanContext().traceId)
        : undefined;
      if (closed !== undefined) this.signals.forget(closed);
    } catch (error) {
      this.log.error(`onEnd failed: ${describeError(error)}`);
    }
  }

  /** Nothing is buffered here: resolves at once. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Releases every run's state and signal; later hooks do nothing. Resolves at once. */
  shutdown(): Promise<void> {
    if (!this.isShutDown) {
      this.isShutDown = true;
      this.parentContexts.clear();
      this.guard.releaseAll('shutdown');
      this.signals.clear();
    }
    return Promise.resolve();
  }

  /**
   * What `wrapExporter` applies to each span it exports: on SDKs without `onEnding`, the loop
   * events, verdict attribute and redactions this processor could not write to the ended span.
   */
  annotateExports(): (span: ReadableSpan) => ReadableSpan {
    this.exportsWrapped = true;
    const alwaysRedact = this.options.redactContent
      ? [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, sc.ATTR_GEN_AI_TOOL_CALL_RESULT]
      : [];
    return (span) => (this.sdkCallsOnEnding ? span : annotatedView(span, this.deferred.take(span), alwaysRedact));
  }

  /**
   * Finishes a tool span with the guard and emits what it decided; returns the span's tool call,
   * if any. `writable` is where annotations go: the span itself while it can still be written to.
   */
  private finish(span: Span | ReadableSpan, writable: ApiSpan | undefined): ToolCallSource | undefined {
    const finished = this.guard.finish(span);
    if (!finished || !('tool' in finished)) {
      // Tokens are charged to a live run only: with none, the usage attributes need no reading.
      if (this.guard.liveRuns > 0) {
        const tokens = modelCallTokens(span.attributes);
        if (tokens > 0) this.guard.spend(span, tokens);
      }
      if (finished) this.emitChat(span, writable, finished);
      return undefined;
    }
    return this.emitFinished(span, writable, finished);
  }

  /**
   * {@link finish} of a tool span: emits what the guard decided. Kept apart so that `finish`
   * stays small enough for V8 to inline for the spans that are no tool call.
   */
  private emitFinished(
    span: Span | ReadableSpan,
    writable: ApiSpan | undefined,
    finished: ToolSpanFinished<Span | ReadableSpan>,
  ): ToolCallSource {
    if (finished.matchedAtEnd)
      this.checks.toolSpan(!hasParent(span) && finished.scope.runKey === traceRunKey(span.spanContext().traceId));
    if (finished.recovery) this.settled(finished.recovery, finished.scope.agentId);
    const { verdict, abort, windowClosed, tool } = finished;
    if (!verdict && !abort && !windowClosed) return tool;
    const site: EventSite = {
      span: writable ?? (span as ApiSpan),
      writable: writable !== undefined,
      scope: finished.scope,
      run: finished.run,
    };
    if (verdict) this.emitter.verdict(site, { toolName: tool.toolName, verdict, toolCallId: tool.toolCallId });
    if (abort) this.emitter.abort(site, abort, tool.toolCallId);
    if (windowClosed) this.emitter.windowClosed(site, windowClosed);
    return tool;
  }

  /** {@link finish} of a model-call (chat) span that concerns a run. */
  private emitChat(span: Span | ReadableSpan, writable: ApiSpan | undefined, finished: ChatSpanFinished): void {
    for (const call of finished.judged) if (call.recovery) this.settled(call.recovery, finished.scope.agentId);
    this.emitter.chat({ span: writable ?? (span as ApiSpan), writable: writable !== undefined }, finished);
  }

  /**
   * A span ended without an ending step (its SDK does not call `onEnding` and the span object
   * could not take its own `end`): it is read-only now, so what the guard decides is kept for
   * `wrapExporter`. Without one, `redactContent` removes the content from the ended span itself
   * (the span object exporters read), and what cannot reach the export is said once, through
   * `diag` and as a process warning, which Node prints without any logger set up.
   */
  private finishWithoutOnEnding(span: ReadableSpan): void {
    const recorder = this.exportsWrapped ? this.deferred.recorder(span) : undefined;
    let tool: ToolCallSource | undefined;
    try {
      tool = this.finish(span, recorder);
    } finally {
      // Content on any span, tool call or not, and whether or not detection failed.
      if (this.options.redactContent) {
        if (recorder) this.deferred.redact(span, this.redactionKeys(span, tool));
        else this.redact(span as Span, tool);
      }
    }
    if (!recorder && (tool || this.options.redactContent) && !this.noOnEndingReported) {
      this.noOnEndingReported = true;
      warnUser(
        this.log,
        `a span ended without the onEnding step (its SDK does not call onEnding, sdk-trace-base before 2.3, and the span object could not take its own end()): loop events (tool_loop.*) and tool_loop.verdict cannot reach exported spans${this.options.redactContent ? ', and redactContent removes content from the span only after it ended, which an exporting processor placed before this one may already have exported' : ''}; callbacks, metrics and run aborts still work. Wrap the exporter with wrapExporter(exporter, processor) to annotate and redact at export time. Reported once.`,
      );
    }
  }

  /**
   * `redactContent`: removes raw tool content after hashing, before export — the GenAI content
   * attributes on any span, every adapter's on the spans that carry its triggers, and those of
   * the adapter that matched it. Runs even when detection failed, so content is never exported
   * by mistake.
   */
  private redact(span: Span, tool: ToolCallSource | undefined): void {
    try {
      const attributes = span.attributes as Record<string, unknown>;
      for (const key of this.redactionKeys(span, tool)) delete attributes[key];
    } catch (error) {
      this.log.error(`redaction failed: ${describeError(error)}`);
    }
  }

  /** The content keys `redactContent` removes from a span: see {@link ContentRedaction}, and the matched adapter's. */
  private redactionKeys(span: Span | ReadableSpan, tool: ToolCallSource | undefined): string[] {
    const keys = this.redaction.keysFor(span);
    const matched = tool?.adapter?.contentAttributes;
    return matched ? [...keys, ...matched] : keys;
  }

  /** A recovery watch was settled: counted here and in the `tool_loop.recovery` counter. */
  private settled(resolution: RecoveryResolution, agentId: string | undefined): void {
    if (resolution.outcome === 'recovered') this.recovered.recovered += 1;
    else if (resolution.outcome === 'repeated') this.recovered.repeated += 1;
    else this.recovered.runEnded += 1;
    this.emitter.recovery(resolution, agentId);
  }

  private onRelease(run: GuardedRun, reason: RunReleaseReason, settled: RecoveryResolution | undefined): void {
    if (settled) this.settled(settled, run.agentId);
    this.released[reason] += 1;
    if (reason === 'capacity' && !this.capacityReported) {
      this.capacityReported = true;
      this.log.warn(
        `more than ${this.options.maxLiveRuns} live runs: evicting the least recently active (their loop history is dropped). Raise maxLiveRuns if this is expected. Reported once; see getStats().`,
      );
    }
  }
}

/**
 * A warning users see without setting up `diag`: through `diag`, and as a Node process warning
 * (printed to stderr unless the application handles `process.on('warning')`).
 */
function warnUser(log: DiagLogger, message: string): void {
  log.warn(message);
  if (typeof process !== 'undefined' && typeof process.emitWarning === 'function')
    process.emitWarning(message, { type: 'ToolLoopGuardWarning', code: 'TOOL_LOOP_GUARD_NO_ON_ENDING' });
}

/**
 * Whether an ended span has a parent: SDK 2.x spans carry `parentSpanContext`, SDK 1.x spans (Genkit's
 * own pipeline) `parentSpanId`; taking a 1.x child for a trace root would release its run at every end.
 */
function hasParent(span: ReadableSpan): boolean {
  return span.parentSpanContext !== undefined || (span as { parentSpanId?: unknown }).parentSpanId !== undefined;
}
