import { context, createContextKey, type DiagLogger } from '@opentelemetry/api';

const PROBE = createContextKey('tool-loop-guard context probe');

/** Whether a context manager is registered: without one, `context.with` makes nothing active. */
function hasContextManager(): boolean {
  return context.with(context.active().setValue(PROBE, true), () => context.active().getValue(PROBE) === true);
}

/**
 * Misconfigurations that make detection silently fail, each told once through `diag` as the
 * processor meets its first tool spans: no context manager, tool spans that are each their own
 * trace. (Where the processor sits among the provider's processors does not matter for what it
 * adds to spans: its ending step runs before any processor's `onEnd`, see `EndingShim`.)
 */
export class PipelineChecks {
  private pipelineChecked = false;
  private traceRootCalls = 0;

  constructor(private readonly log: DiagLogger) {}

  /**
   * A tool span started or was recognised at its end; `alone` when it is its trace's root in the
   * trace's own run scope, i.e. a run of one call.
   */
  toolSpan(alone: boolean): void {
    if (!this.pipelineChecked) {
      this.pipelineChecked = true;
      this.checkPipeline();
    }
    if (alone && ++this.traceRootCalls === 2)
      this.log.warn(
        'tool spans start their own traces (no active span around them): each is a run of one call, so repeated calls are never compared. Run the agent inside traceRun (or give its spans tool_loop.run_id / session.id / gen_ai.conversation.id), and make sure a context manager is registered. Reported once.',
      );
  }

  private checkPipeline(): void {
    if (!hasContextManager())
      this.log.warn(
        'no OpenTelemetry context manager is registered: no span is ever active, so every tool span starts its own trace, a run never accumulates history and nothing is detected. Register AsyncLocalStorageContextManager (NodeTracerProvider.register() and NodeSDK do). Reported once.',
      );
  }
}
