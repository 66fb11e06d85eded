import type { Tracer } from '@opentelemetry/api';
import { ATTR_COMPACTION_RETRY, ATTR_TOOL_LOOP_RUN_ID, SPAN_NAME_COMPACTION_RETRY } from '../semconv.js';

/**
 * Records a `compaction.retry` span in the active context (or in `runId`'s run), which arms
 * the post-compaction guard for that run. Call it after every successful compaction that is
 * followed by a retry of the prompt.
 */
export function markCompactionRetry(tracer: Tracer, options: { runId?: string } = {}): void {
  const attributes: Record<string, string | boolean> = { [ATTR_COMPACTION_RETRY]: true };
  if (options.runId?.trim()) attributes[ATTR_TOOL_LOOP_RUN_ID] = options.runId.trim();
  tracer.startSpan(SPAN_NAME_COMPACTION_RETRY, { attributes }).end();
}
