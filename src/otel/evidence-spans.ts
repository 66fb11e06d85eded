import {
  createContextKey,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type DiagLogger,
  type Link,
  type Span,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { CallRef } from '../engine/evidence/call-refs.js';
import * as sc from '../semconv.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { describeError } from '../util/describe-error.js';

/** Set in the context an evidence span starts in: every tool-loop-guard processor leaves that span alone. */
const EVIDENCE_SPAN = createContextKey('tool-loop-guard evidence span');

/** Whether a span starting in `parentContext` is an evidence span of ours. */
export function isEvidenceContext(parentContext: Context): boolean {
  return parentContext.getValue(EVIDENCE_SPAN) !== undefined;
}

/** What an evidence span says about a critical verdict. */
export interface Evidence {
  /**
   * What was judged: the call before it ran (`call`: a block), or its outcome (`outcome`: the
   * post-compaction guard aborting the run).
   */
  readonly judged: 'call' | 'outcome';
  /** The loop event's attributes (detector, count, run, window, waste…), copied onto the span. */
  readonly attributes: Attributes;
  readonly message: string;
  /** The judged call's id (`gen_ai.guardrail.target.id`). */
  readonly toolCallId?: string;
  /** The loop's member calls; the judged one among them is left out (it is the evidence span's parent). */
  readonly members: readonly CallRef[];
  /** Shadow mode: the call was allowed (action `allow`, status UNSET). */
  readonly shadow: boolean;
  /**
   * The evidence of a warning (`tool-loop-guard serve` emits one for every surfaced verdict):
   * verdict `warn`, action `allow`, status UNSET. Default: a critical's.
   */
  readonly warning?: boolean;
  /**
   * The loop event, added to the evidence span with the event's attributes, for a tool span that
   * can no longer take it (`tool-loop-guard serve`: the span was exported before it was judged).
   */
  readonly event?: string;
  /** When the verdict was reached, for one reached after the fact (on the agent's clock). Default: now. */
  readonly time?: TimeInput;
}

/**
 * Creates the evidence span of each critical and of each post-compaction abort:
 * `run_guardrail tool-loop-guard`, INTERNAL, a child of the judged tool span, with a link to
 * every other member call of the loop. A span
 * processor has no tracer of its own: it uses the `tracerProvider` option (a provider, or a
 * function returning one), else the global provider once one is registered; with neither
 * there is no evidence span.
 */
export class EvidenceSpans {
  /** The provider that hands out no-op tracers, to tell an unregistered global apart. */
  private readonly noop = new ProxyTracerProvider().getDelegate();
  /** The provider last asked, and its tracer (`undefined`: it could not hand one out). */
  private cached: { readonly provider: TracerProvider; readonly tracer: Tracer | undefined } | undefined = undefined;
  private failureReported = false;

  constructor(
    private readonly enabled: boolean,
    private readonly provider: TracerProvider | (() => TracerProvider | undefined) | undefined,
    private readonly log: DiagLogger,
  ) {}

  /** Whether an evidence span could be created now (so calls keep their span references). */
  available(): boolean {
    return this.tracer() !== undefined;
  }

  /** Emits the evidence span of a critical on `toolSpan`; does nothing without a tracer. */
  emit(toolSpan: Span, evidence: Evidence): void {
    const tracer = this.tracer();
    if (tracer) emitEvidenceSpan(tracer, toolSpan, evidence);
  }

  private tracer(): Tracer | undefined {
    if (!this.enabled) return undefined;
    const given = typeof this.provider === 'function' ? this.askProvider(this.provider) : this.provider;
    let provider = given ?? trace.getTracerProvider();
    if (provider instanceof ProxyTracerProvider) provider = provider.getDelegate();
    if (provider === this.noop || typeof provider?.getTracer !== 'function') return undefined;
    if (this.cached?.provider !== provider) this.cached = { provider, tracer: this.tracerOf(provider) };
    return this.cached.tracer;
  }

  /** A provider's tracer; one that cannot hand one out means no evidence spans from it (detection goes on). */
  private tracerOf(provider: TracerProvider): Tracer | undefined {
    try {
      return provider.getTracer(PACKAGE_NAME, PACKAGE_VERSION);
    } catch (error) {
      this.reportFailure(`the tracer provider's getTracer threw`, error);
      return undefined;
    }
  }

  /** The user's provider function, asked; one that throws counts as no provider (detection goes on). */
  private askProvider(ask: () => TracerProvider | undefined): TracerProvider | undefined {
    try {
      return ask();
    } catch (error) {
      this.reportFailure('the tracerProvider function threw', error);
      return undefined;
    }
  }

  private reportFailure(what: string, error: unknown): void {
    if (this.failureReported) return;
    this.failureReported = true;
    this.log.warn(
      `${what}, so there are no evidence spans from it; detection is unaffected. Reported once: ${describeError(error)}`,
    );
  }
}

/**
 * Starts and ends the evidence span of a verdict with `tracer`: `run_guardrail tool-loop-guard`,
 * INTERNAL, a child of `toolSpan`, linked to the loop's other member calls (see {@link EvidenceSpans}).
 */
export function emitEvidenceSpan(tracer: Tracer, toolSpan: Span, evidence: Evidence): void {
  const parent = toolSpan.spanContext();
  const links: Link[] = evidence.members
    .filter((ref) => ref.spanId !== parent.spanId)
    .map((ref) => ({ context: { traceId: ref.traceId, spanId: ref.spanId, traceFlags: parent.traceFlags } }));
  const allowed = evidence.shadow || evidence.warning === true;
  const attributes: Attributes = {
    ...evidence.attributes,
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_RUN_GUARDRAIL,
    [sc.ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME]: sc.GUARDRAIL_COMPONENT_TOOL_LOOP_GUARD,
    [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_TYPE]:
      evidence.judged === 'call' ? sc.GUARDRAIL_TARGET_INPUT : sc.GUARDRAIL_TARGET_OUTPUT,
    [sc.ATTR_GEN_AI_GUARDRAIL_TARGET_SUBTYPE]: sc.GUARDRAIL_TARGET_TOOL_CALL,
    [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]:
      evidence.warning === true ? sc.GUARDRAIL_VERDICT_WARN : sc.GUARDRAIL_VERDICT_DENY,
    [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON]: evidence.message,
    [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: allowed
      ? sc.GUARDRAIL_ACTION_ALLOW
      : evidence.judged === 'call'
        ? sc.GUARDRAIL_ACTION_BLOCK
        : sc.GUARDRAIL_ACTION_ABORT,
  };
  if (evidence.toolCallId !== undefined) attributes[sc.ATTR_GEN_AI_GUARDRAIL_TARGET_ID] = evidence.toolCallId;
  // A span with a tool name is a tool call to every reader of the GenAI conventions (ours too, as
  // it ends): the tool is the parent's.
  delete attributes[sc.ATTR_GEN_AI_TOOL_NAME];
  const context = trace.setSpan(ROOT_CONTEXT, toolSpan).setValue(EVIDENCE_SPAN, true);
  const { time } = evidence;
  const span = tracer.startSpan(
    `${sc.GEN_AI_OPERATION_RUN_GUARDRAIL} ${sc.GUARDRAIL_COMPONENT_TOOL_LOOP_GUARD}`,
    { kind: SpanKind.INTERNAL, attributes, links, ...(time !== undefined ? { startTime: time } : {}) },
    context,
  );
  if (evidence.event !== undefined) span.addEvent(evidence.event, evidence.attributes, time);
  if (!allowed) span.setStatus({ code: SpanStatusCode.ERROR, message: evidence.message });
  span.end(time);
}
