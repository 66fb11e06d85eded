import { setBounded } from '../util/bounded-map.js';

/**
 * One processor's abort signals: the `runSignal` controllers it handed out, and the controllers
 * of the `traceRun` calls whose root spans it saw start. Kept apart from run states so that a
 * signal handed out before an idle or capacity release still aborts when the run resumes.
 */
export class RunSignals {
  /** `runSignal` controllers by run key; dropped when the run's root span ends, and capped. */
  private readonly controllers = new Map<string, AbortController>();
  /** `traceRun` controllers by run id, registered while the run's body runs. */
  private readonly helpers = new Map<string, Set<AbortController>>();

  constructor(private readonly maxRuns: number) {}

  /** The run's signal, aborted at once with `reason` when the run was already aborted. */
  signal(runKey: string, reason: Error | undefined): AbortSignal {
    let controller = this.controllers.get(runKey);
    if (!controller) {
      controller = new AbortController();
      setBounded(this.controllers, runKey, controller, this.maxRuns);
    }
    if (reason && !controller.signal.aborted) controller.abort(reason);
    return controller.signal;
  }

  /** Registers a `traceRun` controller; returns the function that unregisters it. */
  register(runId: string, controller: AbortController): () => void {
    let set = this.helpers.get(runId);
    if (!set) {
      set = new Set();
      this.helpers.set(runId, set);
    }
    set.add(controller);
    return () => {
      const current = this.helpers.get(runId);
      if (!current) return;
      current.delete(controller);
      if (current.size === 0) this.helpers.delete(runId);
    };
  }

  /** Aborts the run's signal and every `traceRun` registered for it. */
  abort(runKey: string, reason: Error): void {
    const controller = this.controllers.get(runKey);
    if (controller && !controller.signal.aborted) controller.abort(reason);
    const registered = this.helpers.get(runKey);
    if (registered) for (const each of registered) if (!each.signal.aborted) each.abort(reason);
  }

  /** The run is over: its `runSignal` controller is dropped (signals handed out keep their state). */
  forget(runKey: string): void {
    if (this.controllers.size > 0) this.controllers.delete(runKey);
  }

  /** Drops every controller (shutdown). */
  clear(): void {
    this.controllers.clear();
    this.helpers.clear();
  }
}
