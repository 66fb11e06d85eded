/** Trims a run id; empty means "no run id", as in OpenClaw. */
export function normalizeRunId(runId: string | undefined): string | undefined {
  const trimmed = typeof runId === 'string' ? runId.trim() : '';
  return trimmed === '' ? undefined : trimmed;
}
