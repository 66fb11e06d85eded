import { context, createContextKey, type DiagLogger } from '@opentelemetry/api';
import { isRecord } from '../util/is-record.js';

const PROBE = createContextKey('tool-loop-guard context probe');

/** Whether a context manager is registered: without one, `context.with` makes nothing active. */
function hasContextManager(): boolean {
  return context.with(context.active().setValue(PROBE, true), () => context.active().getValue(PROBE) === true);
}

/**
 * Whether an exporting processor (one with an exporter: `SimpleSpanProcessor`,
 * `BatchSpanProcessor`) runs before `processor` in the provider of `span`, read from the SDK's
 * span internals (2.x and 1.x: the span's `_spanProcessor` is the provider's
 * `MultiSpanProcessor`, its `_spanProcessors` the list); `undefined` when that cannot be seen.
 */
function exportsBefore(span: object, processor: object): boolean | undefined {
  const multi = (span as { _spanProcessor?: unknown })._spanProcessor;
  const processors = isRecord(multi) ? multi._spanProcessors : undefined;
  if (!Array.isArray(processors)) return undefined;
  const index = processors.indexOf(processor);
  if (index < 0) return undefined;
  return processors.slice(0, index).some((earlier) => isRecord(earlier) && '_exporter' in earlier);
}

/**
 * Misconfigurations that make detection silently fail, each told once through `diag` as the
 * processor meets its first tool spans: no context manager, the processor after an exporting
 * processor, tool spans that are each their own trace.
 */
export class PipelineChecks {
  private pipelineChecked = false;
  private traceRootCalls = 0;

  constructor(
    private readonly log: DiagLogger,
    private readonly processor: object,
    /** Whether an exporter was wrapped with `wrapExporter` for the processor. */
    private readonly exportsWrapped: () => boolean,
  ) {}

  /**
   * A tool span started or was recognised at its end; `alone` when it is its trace's root in the
   * trace's own run scope, i.e. a run of one call.
   */
  toolSpan(span: object, alone: boolean): void {
    if (!this.pipelineChecked) {
      this.pipelineChecked = true;
      this.checkPipeline(span);
    }
    if (alone && ++this.traceRootCalls === 2)
      this.log.warn(
        'tool spans start their own traces (no active span around them): each is a run of one call, so repeated calls are never compared. Run the agent inside traceRun (or give its spans tool_loop.run_id / session.id / gen_ai.conversation.id), and make sure a context manager is registered. Reported once.',
      );
  }

  private checkPipeline(span: object): void {
    if (!hasContextManager())
      this.log.warn(
        'no OpenTelemetry context manager is registered: no span is ever active, so every tool span starts its own trace, a run never accumulates history and nothing is detected. Register AsyncLocalStorageContextManager (NodeTracerProvider.register() and NodeSDK do). Reported once.',
      );
    if (exportsBefore(span, this.processor) === true && !this.exportsWrapped())
      this.log.warn(
        'ToolLoopSpanProcessor runs after an exporting span processor: on SDKs without onEnding (before 2.3) its loop events, verdicts and redaction never reach that exporter, and attributes it reads may already be changed. Put it first in spanProcessors, or wrap the exporter with wrapExporter(exporter, processor). Reported once.',
      );
  }
}
