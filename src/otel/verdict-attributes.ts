import type { Attributes } from '@opentelemetry/api';
import { toolLoopSystemNote } from '../engine/system-note.js';
import type { LoopCheck, LoopVerdict } from '../engine/types.js';
import * as sc from '../semconv.js';

/**
 * The attributes a verdict's span event carries besides the common fields: its warning key and
 * paired tool; on a warning, OpenClaw's system note for the model (`tool_loop.system_note`,
 * the value `traceToolCall` appends to the result); while argument churn is active, its
 * liveness signal and clock.
 */
export function verdictEventAttributes(verdict: LoopVerdict, check: Pick<LoopCheck, 'churnActiveMs'>): Attributes {
  const attributes: Attributes = { [sc.ATTR_TOOL_LOOP_WARNING_KEY]: verdict.warningKey };
  if (verdict.pairedToolName !== undefined) attributes[sc.ATTR_TOOL_LOOP_PAIRED_TOOL] = verdict.pairedToolName;
  if (verdict.level === sc.LEVEL_WARNING) attributes[sc.ATTR_TOOL_LOOP_SYSTEM_NOTE] = toolLoopSystemNote(verdict.count);
  if (verdict.livenessSignal !== undefined) attributes[sc.ATTR_TOOL_LOOP_LIVENESS_SIGNAL] = verdict.livenessSignal;
  if (check.churnActiveMs !== undefined) attributes[sc.ATTR_TOOL_LOOP_CHURN_ACTIVE_MS] = check.churnActiveMs;
  return attributes;
}
