import { context } from '@opentelemetry/api';
import { setContextRun } from '../otel/context-run.js';
import { runIdOf } from '../spans/run-id.js';
import { boundedText } from '../util/bounded-text.js';

/** The run {@link withRun} puts in the context. */
export interface WithRunOptions {
  /** Run id: scopes loop history, as `tool_loop.run_id` does; `processor.runSignal(runId)` is its signal. Required, non-blank. */
  runId: string;
  /** Agent id: selects per-agent config (a span's own `gen_ai.agent.id` wins). */
  agentId?: string;
}

/**
 * Runs `fn` with a run in the active OpenTelemetry context, without a span of its own: every span
 * started inside it, at any depth and in any trace, that has no run of its own (no
 * `tool_loop.run_id`, session or conversation id) and no live ancestor in one joins run `runId`.
 * For loops whose model and tool calls each start a trace of their own (an instrumented client
 * called in a hand-written loop, OpenLLMetry's LangChain spans without an enclosing span), and
 * for request handlers whose calls belong to a longer session (an MCP server's tools, one run per
 * MCP session).
 *
 * Nothing in the run is a root span, so no span's end releases its state: it is released after
 * `runIdleTtlMs` without a call, or by the live-run cap; its `runSignal` stays until then and
 * keeps its aborted state, so use a fresh id per run. Returns what `fn` returns; throws a
 * `TypeError` for a blank `runId`.
 */
export function withRun<T>(options: WithRunOptions, fn: () => T): T {
  // Read as every entry point reads run ids, so that `runSignal(runId)` finds this run.
  const runId = typeof options?.runId === 'string' ? runIdOf(options.runId) : undefined;
  if (runId === undefined) throw new TypeError('withRun: options.runId must be a non-blank string');
  // Bounded as agent ids read from spans are (a span's own id wins over this one).
  const agentId =
    typeof options.agentId === 'string' && options.agentId.trim() !== ''
      ? boundedText(options.agentId.trim())
      : undefined;
  return context.with(setContextRun(context.active(), { runId, agentId }), fn);
}
