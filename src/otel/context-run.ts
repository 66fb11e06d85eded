import { createContextKey, type Context } from '@opentelemetry/api';
import type { ContextRun } from '../spans/run-scope.js';

const CONTEXT_RUN = createContextKey('tool-loop-guard run');

/**
 * A context carrying a run (`withRun`): the spans started in it (at any depth, in any trace)
 * that have no run of their own or of a live ancestor join it. Kept in the context, not on a
 * span, so that loops whose every model and tool call starts its own trace still share a run.
 */
export function setContextRun(context: Context, run: ContextRun): Context {
  return context.setValue(CONTEXT_RUN, Object.freeze({ runId: run.runId, agentId: run.agentId }));
}

/** The run a span's parent context carries, if any. */
export function contextRunOf(context: Context): ContextRun | undefined {
  return context.getValue(CONTEXT_RUN) as ContextRun | undefined;
}
