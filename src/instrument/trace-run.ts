import { context, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { HelperRequest } from '../otel/helper-bridge.js';
import { runIdOf } from '../spans/run-id.js';
import { RunRecovery } from './run-recovery.js';
import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_TOOL_LOOP_RUN_ID,
  GEN_AI_OPERATION_INVOKE_AGENT,
} from '../semconv.js';

/** Identity of a run opened by {@link traceRun}. */
export interface TraceRunOptions {
  /** Run id: scopes loop history (`tool_loop.run_id`). Required, non-blank. */
  runId: string;
  /** Agent id (`gen_ai.agent.id`): selects per-agent config. */
  agentId?: string;
  /** Root span name. Default `invoke_agent <agentId>` or `invoke_agent`. */
  spanName?: string;
  /**
   * OpenClaw's one recovery turn: the run's first critical verdict on a `traceToolCall` is not
   * run and tells the model to reassess; the second ends the run (its signal aborts with the
   * `ToolLoopBlockedError`, the blocked result has `terminate: true`). `false`: every critical is
   * a recovery turn and no critical ends the run. Default `true`.
   */
  endOnSecondCritical?: boolean;
}

/** What the run body receives. */
export interface RunContext {
  /** The run's root span (active for the body). */
  readonly span: Span;
  /**
   * Aborted with a `CompactionLoopPersistedError` when the post-compaction guard fires, with a
   * `ToolLoopBlockedError` on the run's second critical `traceToolCall` (see
   * `endOnSecondCritical`), and on any critical verdict when the processor has `abortOnCritical`.
   * Pass it to model calls and long-running tools.
   */
  readonly signal: AbortSignal;
  readonly runId: string;
}

/**
 * Runs `fn` inside a root span carrying the run's attributes. When the run is aborted by the
 * processor, the returned promise rejects with the abort reason (it wins over whatever error
 * the body threw, as in OpenClaw). The root span ends when `fn` settles, which releases the
 * run's loop state in the processor.
 */
export async function traceRun<T>(
  tracer: Tracer,
  options: TraceRunOptions,
  fn: (run: RunContext) => Promise<T> | T,
): Promise<T> {
  // Read as every entry point reads run ids, so that `runSignal(runId)` finds this run.
  const runId = typeof options?.runId === 'string' ? runIdOf(options.runId) : undefined;
  if (runId === undefined) throw new TypeError('traceRun: options.runId must be a non-blank string');
  const attributes: Record<string, string> = {
    [ATTR_TOOL_LOOP_RUN_ID]: runId,
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
  };
  if (options.agentId) attributes[ATTR_GEN_AI_AGENT_ID] = options.agentId;
  const name =
    options.spanName ??
    (options.agentId ? `${GEN_AI_OPERATION_INVOKE_AGENT} ${options.agentId}` : GEN_AI_OPERATION_INVOKE_AGENT);
  // The processor that sees the root span start registers the run's controller: only that
  // processor's loops abort this run, whatever other providers run with the same run id.
  const { request, context: helperContext } = HelperRequest.start(context.active());
  const controller = new AbortController();
  const runContext = RunRecovery.bind(
    helperContext,
    new RunRecovery(controller, options.endOnSecondCritical !== false),
  );
  return tracer.startActiveSpan(name, { attributes }, runContext, async (span) => {
    const unregister = request.close()?.registerRun(runId, controller);
    try {
      const result = await fn({ span, signal: controller.signal, runId });
      if (controller.signal.aborted) throw controller.signal.reason as Error;
      return result;
    } catch (error) {
      const reported: unknown = controller.signal.aborted ? controller.signal.reason : error;
      span.recordException(reported instanceof Error ? reported : String(reported));
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: reported instanceof Error ? reported.message : String(reported),
      });
      throw reported;
    } finally {
      unregister?.();
      span.end();
    }
  });
}
