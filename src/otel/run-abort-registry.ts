/**
 * Abort controllers of runs opened by `traceRun`, keyed by run id. The processor aborts
 * them when it aborts the run; `traceRun` registers on entry and unregisters in `finally`,
 * so the registry holds only runs in progress.
 */
const controllers = new Map<string, Set<AbortController>>();

/** Registers a controller for a run; returns the function that unregisters it. */
export function registerRunAbortController(runId: string, controller: AbortController): () => void {
  let set = controllers.get(runId);
  if (!set) {
    set = new Set();
    controllers.set(runId, set);
  }
  set.add(controller);
  return () => {
    const current = controllers.get(runId);
    if (!current) return;
    current.delete(controller);
    if (current.size === 0) controllers.delete(runId);
  };
}

/** Aborts every controller registered for the run with `reason`. */
export function abortRegisteredRun(runId: string, reason: Error): void {
  const set = controllers.get(runId);
  if (!set) return;
  for (const controller of set) if (!controller.signal.aborted) controller.abort(reason);
}
