/** One problem found in a configuration object: where it is and what is wrong. */
export interface ConfigIssue {
  /** Key path, e.g. `tools.loopDetection.warningThreshold` or `agents.list[0].id`. */
  readonly path: string;
  readonly message: string;
  /** `error`: wrong type or shape; `warning`: an unknown key or a rule the runtime clamps. */
  readonly severity: 'error' | 'warning';
}
