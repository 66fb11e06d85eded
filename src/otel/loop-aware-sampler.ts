import {
  diag,
  isSpanContextValid,
  isValidTraceId,
  SamplingDecision,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type DiagLogger,
  type Link,
  type SamplingResult,
  type SpanKind,
} from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_TOOL_LOOP_SAMPLED_IN } from '../semconv.js';
import { readScopeHint } from '../spans/span-reading.js';
import { SpanTriggers } from '../spans/span-triggers.js';
import type { SpanView } from '../spans/span-view.js';
import { describeValue } from '../util/describe-value.js';
import { PACKAGE_NAME } from '../version.js';
import type { LoopAbortEvent, LoopEvent } from './loop-event.js';
import { describeError } from '../util/describe-error.js';
import { SamplerRecentIds } from './sampler-recent-ids.js';
import { resolveSamplerOptions, type ResolvedSamplerOptions, type ToolLoopSamplerOptions } from './sampler-options.js';

/** The processor callbacks {@link ToolLoopSampler.callbacks} returns, to spread into `ToolLoopSpanProcessor.create`. */
export interface ToolLoopSamplerCallbacks {
  readonly onLoopEvent: (event: LoopEvent) => void;
  readonly onAbort: (event: LoopAbortEvent) => void;
}

const NOT_RECORDED: SamplingResult = Object.freeze({ decision: SamplingDecision.NOT_RECORD });
const RECORDED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD });
const SAMPLED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });
const SAMPLED_IN_ATTRIBUTES: Attributes = Object.freeze({ [ATTR_TOOL_LOOP_SAMPLED_IN]: true });
const SAMPLED_IN: SamplingResult = Object.freeze({
  decision: SamplingDecision.RECORD_AND_SAMPLED,
  attributes: SAMPLED_IN_ATTRIBUTES,
});

/**
 * A `Sampler` that keeps loop detection working under any sampling. It wraps the sampler you
 * would use anyway (the delegate) and changes only two of its decisions:
 *
 * - A span the delegate drops (`NOT_RECORD`) is **recorded but not sampled** (`RECORD`) when it
 *   may belong to an agent run (see {@link SamplerRecordMode}; default `'traces'`): the
 *   `ToolLoopSpanProcessor` sees it and can block a looping call, while exporting processors
 *   (`BatchSpanProcessor`, `SimpleSpanProcessor`) drop it, as they drop every unsampled span.
 * - Once a loop is found in a trace or run (pass {@link callbacks}, or {@link onLoopEvent} and
 *   {@link onAbort}, to the processor), the spans that start in it afterwards are
 *   `RECORD_AND_SAMPLED`, with `tool_loop.sampled_in` = `true`, so the loop reaches the backend.
 *
 * Every other decision is the delegate's, as it returned it (attributes and trace state
 * included). Decisions are made from what `shouldSample` is given: the span's name, kind and
 * attributes at creation, and its parent context. Recording costs what a sampled span costs in
 * this process (the span object, its attributes and events, every processor's `onStart` and
 * `onEnd`) but no export; the traces and runs remembered are capped (`maxLoopingRuns`,
 * `maxRecordedTraces`).
 *
 * `shouldSample` never throws: a delegate that throws or returns no decision is answered as the
 * SDK's default would (a child follows its parent's sampled flag; a root is not sampled), with a
 * `diag` warning once, and the rules above still apply.
 */
export class ToolLoopSampler implements Sampler {
  /**
   * Pass as the processor's `onLoopEvent` (or use {@link callbacks} to keep your own): every
   * warning or critical samples its trace and run in. Never throws.
   */
  readonly onLoopEvent: (event: LoopEvent) => void;
  /** Pass as the processor's `onAbort`: an aborted run is sampled in, as for {@link onLoopEvent}. Never throws. */
  readonly onAbort: (event: LoopAbortEvent) => void;

  private readonly options: ResolvedSamplerOptions;
  private readonly triggers: SpanTriggers;
  private readonly loopingTraces: SamplerRecentIds;
  private readonly loopingRuns: SamplerRecentIds;
  /** Traces in which a marked span was recorded (`record: 'traces'`). */
  private readonly recordedTraces: SamplerRecentIds;
  private readonly log: DiagLogger;
  private delegateFailureReported = false;
  private ownFailureReported = false;

  /**
   * @param delegate - The sampler whose decisions stand for every span this one does not change
   *   (e.g. `new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) })`).
   * @param options - See {@link ToolLoopSamplerOptions}.
   * @throws TypeError when `delegate` has no `shouldSample` method.
   */
  constructor(
    private readonly delegate: Sampler,
    options?: ToolLoopSamplerOptions,
  ) {
    if (typeof (delegate as Partial<Sampler> | undefined)?.shouldSample !== 'function')
      throw new TypeError(`ToolLoopSampler: delegate must be a Sampler, got ${describeValue(delegate)}`);
    this.log = diag.createComponentLogger({ namespace: PACKAGE_NAME });
    this.options = resolveSamplerOptions(options, process.env, this.log);
    this.triggers = SpanTriggers.of(this.options.adapters);
    this.loopingTraces = new SamplerRecentIds(this.options.maxLoopingRuns);
    this.loopingRuns = new SamplerRecentIds(this.options.maxLoopingRuns);
    this.recordedTraces = new SamplerRecentIds(this.options.maxRecordedTraces);
    this.onLoopEvent = (event) => this.sampleFrom(event);
    this.onAbort = (event) => this.sampleFrom(event);
  }

  /**
   * The processor's `onLoopEvent` and `onAbort`: each samples the looping run in, then calls
   * yours, if given (what yours throws, or its promise rejects with, is the processor's to catch
   * and log, as without this).
   *
   * @example
   * const sampler = new ToolLoopSampler(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) }));
   * const processor = await ToolLoopSpanProcessor.create({ config, ...sampler.callbacks({ onLoopEvent: alert }) });
   * const provider = new NodeTracerProvider({ sampler, spanProcessors: [processor, new BatchSpanProcessor(exporter)] });
   */
  callbacks(own?: Partial<ToolLoopSamplerCallbacks>): ToolLoopSamplerCallbacks {
    const onLoopEvent = this.ownCallback(own, 'onLoopEvent');
    const onAbort = this.ownCallback(own, 'onAbort');
    return {
      onLoopEvent: onLoopEvent
        ? (event) => {
            this.onLoopEvent(event);
            // Returned: the processor handles the promise of an async callback (its rejection).
            return onLoopEvent(event);
          }
        : this.onLoopEvent,
      onAbort: onAbort
        ? (event) => {
            this.onAbort(event);
            return onAbort(event);
          }
        : this.onAbort,
    };
  }

  /**
   * Samples in the spans that start from now on in trace `traceId`, and in any trace whose spans
   * carry run id `runId` as they start (`tool_loop.run_id`, `ai.telemetry.metadata.runId`,
   * `session.id`, … — the adapters' run scopes). What the listeners call; ids with an invalid trace
   * id are ignored. Never throws.
   */
  sampleIn(ids: { readonly traceId: string; readonly runId?: string }): void {
    try {
      const { traceId, runId } = ids;
      if (typeof traceId !== 'string' || !isValidTraceId(traceId)) return;
      this.loopingTraces.add(traceId);
      // A run scoped by its trace is named by the trace id, or `<traceId>/<spanId>`: neither can
      // start another trace, so only a run id of its own is worth a slot.
      if (typeof runId === 'string' && runId.trim() !== '' && runId !== traceId && !runId.startsWith(`${traceId}/`))
        this.loopingRuns.add(runId);
    } catch (error) {
      this.reportOwnFailure(error);
    }
  }

  /** The delegate's decision, or the changes described on the class. Never throws. */
  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    let delegated: SamplingResult;
    try {
      const result = this.delegate.shouldSample(context, traceId, spanName, spanKind, attributes, links);
      delegated = isSamplingResult(result) ? result : this.delegateFailed(context, `returned ${describeValue(result)}`);
    } catch (error) {
      delegated = this.delegateFailed(context, `threw ${describeError(error)}`);
    }
    if (delegated.decision === SamplingDecision.RECORD_AND_SAMPLED) return delegated;
    try {
      if (this.loopingTraces.size > 0 && this.isLooping(traceId, spanName, attributes)) return sampledIn(delegated);
      if (delegated.decision === SamplingDecision.RECORD || !this.records(context, traceId, spanName, attributes))
        return delegated;
      return delegated.attributes === undefined && delegated.traceState === undefined
        ? RECORDED
        : { ...delegated, decision: SamplingDecision.RECORD };
    } catch (error) {
      this.reportOwnFailure(error);
      return delegated;
    }
  }

  /** Names the sampler and its delegate, as OpenTelemetry's samplers do. */
  toString(): string {
    let inner: string;
    try {
      inner = String(this.delegate.toString());
    } catch {
      inner = 'unprintable sampler';
    }
    const { record, maxLoopingRuns, maxRecordedTraces } = this.options;
    return `ToolLoopSampler{delegate=${inner}, record=${record}, maxLoopingRuns=${maxLoopingRuns}, maxRecordedTraces=${maxRecordedTraces}}`;
  }

  /** Whether the span starts in a looping trace, or carries the run id of a looping run (its trace is then looping too). */
  private isLooping(traceId: string, spanName: string, attributes: Attributes | undefined): boolean {
    if (this.loopingTraces.has(traceId)) return true;
    if (this.loopingRuns.size === 0) return false;
    const view = spanView(spanName, attributes);
    if (!this.triggers.mayConcern(view)) return false;
    const runId = readScopeHint(this.options.adapters, view)?.runId;
    if (runId === undefined || !this.loopingRuns.has(runId)) return false;
    this.loopingTraces.add(traceId);
    return true;
  }

  /** Whether a span the delegate dropped is recorded, by the `record` mode. */
  private records(context: Context, traceId: string, spanName: string, attributes: Attributes | undefined): boolean {
    const mode = this.options.record;
    if (mode === 'all') return true;
    const marked = this.triggers.mayConcern(spanView(spanName, attributes));
    if (mode === 'marked') return marked;
    if (marked) this.recordedTraces.add(traceId);
    // The parent check covers a trace forgotten past the cap, for the spans under a live recording one.
    return marked || this.recordedTraces.touch(traceId) || hasRecordingUnsampledParent(context);
  }

  private sampleFrom(event: LoopEvent | LoopAbortEvent): void {
    if (typeof event === 'object' && event !== null) this.sampleIn(event);
  }

  private ownCallback<K extends keyof ToolLoopSamplerCallbacks>(
    own: Partial<ToolLoopSamplerCallbacks> | undefined,
    key: K,
  ): ToolLoopSamplerCallbacks[K] | undefined {
    const value = typeof own === 'object' && own !== null ? own[key] : undefined;
    if (value === undefined || typeof value === 'function') return value;
    this.log.warn(`ToolLoopSampler.callbacks: ${key} must be a function, got ${describeValue(value)}; ignored`);
    return undefined;
  }

  /** What a span gets when the delegate failed on it (said once): the parent's sampled flag. */
  private delegateFailed(context: Context, what: string): SamplingResult {
    if (!this.delegateFailureReported) {
      this.delegateFailureReported = true;
      this.log.warn(
        `ToolLoopSampler: the delegate sampler ${what}; such spans follow their parent's sampled flag (roots are not sampled) and tool and agent spans are still recorded. Reported once.`,
      );
    }
    return parentDecision(context);
  }

  private reportOwnFailure(error: unknown): void {
    if (this.ownFailureReported) return;
    this.ownFailureReported = true;
    this.log.error(`ToolLoopSampler failed, keeping the delegate's decision: ${describeError(error)}. Reported once.`);
  }
}

function spanView(name: string, attributes: Attributes | undefined): SpanView {
  return { name: typeof name === 'string' ? name : '', attributes: attributes ?? {} };
}

/** The delegate's result with the span sampled in (its attributes and trace state kept). */
function sampledIn(delegated: SamplingResult): SamplingResult {
  if (delegated.attributes === undefined && delegated.traceState === undefined) return SAMPLED_IN;
  return {
    decision: SamplingDecision.RECORD_AND_SAMPLED,
    attributes: { ...delegated.attributes, ...SAMPLED_IN_ATTRIBUTES },
    traceState: delegated.traceState,
  };
}

/** The SDK default's answer for a child (follow the parent's sampled flag); a root is not sampled. */
function parentDecision(context: Context): SamplingResult {
  try {
    const parent = trace.getSpanContext(context);
    if (parent && isSpanContextValid(parent) && (parent.traceFlags & TraceFlags.SAMPLED) !== 0) return SAMPLED;
  } catch {
    // an unreadable context has no parent to follow
  }
  return NOT_RECORDED;
}

/**
 * Whether the span's parent is a live span of this process that records without being sampled.
 * A parent context holding only a span context (`trace.setSpanContext`) has no live span: such
 * children are recorded by their trace, while it is remembered.
 */
function hasRecordingUnsampledParent(context: Context): boolean {
  const parent = trace.getSpan(context);
  if (parent === undefined || !parent.isRecording()) return false;
  return (parent.spanContext().traceFlags & TraceFlags.SAMPLED) === 0;
}

function isSamplingResult(value: unknown): value is SamplingResult {
  const decision = (value as Partial<SamplingResult> | null | undefined)?.decision;
  return (
    decision === SamplingDecision.NOT_RECORD ||
    decision === SamplingDecision.RECORD ||
    decision === SamplingDecision.RECORD_AND_SAMPLED
  );
}
