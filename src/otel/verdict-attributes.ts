import type { Attributes } from '@opentelemetry/api';
import { toolLoopSystemNote } from '../engine/system-note.js';
import type { RunCheck } from '../engine/loop-run.js';
import type { LoopVerdict } from '../engine/types.js';
import * as sc from '../semconv.js';

/**
 * The attributes a verdict's span event carries besides the common fields: its warning key and
 * paired tool; on a warning (not in shadow mode), OpenClaw's system note for the model
 * (`tool_loop.system_note`, the value `traceToolCall` appends to the result); while argument
 * churn is active, its liveness signal and clock; what the loop burned (`tool_loop.wasted_*`)
 * and the budget it passed; the cycle's period, the masked result fields; and the window: the
 * loop's signatures and its members recorded before this call.
 */
export function verdictEventAttributes(
  verdict: LoopVerdict,
  check: Pick<RunCheck, 'churnActiveMs' | 'wastedTokens' | 'wastedMs' | 'budgetExceeded' | 'window'>,
  shadow = false,
): Attributes {
  const attributes: Attributes = { [sc.ATTR_TOOL_LOOP_WARNING_KEY]: verdict.warningKey };
  if (verdict.pairedToolName !== undefined) attributes[sc.ATTR_TOOL_LOOP_PAIRED_TOOL] = verdict.pairedToolName;
  if (verdict.level === sc.LEVEL_WARNING && !shadow)
    attributes[sc.ATTR_TOOL_LOOP_SYSTEM_NOTE] = toolLoopSystemNote(verdict.count);
  if (verdict.livenessSignal !== undefined) attributes[sc.ATTR_TOOL_LOOP_LIVENESS_SIGNAL] = verdict.livenessSignal;
  if (check.churnActiveMs !== undefined) attributes[sc.ATTR_TOOL_LOOP_CHURN_ACTIVE_MS] = check.churnActiveMs;
  if (check.wastedTokens !== undefined) attributes[sc.ATTR_TOOL_LOOP_WASTED_TOKENS] = check.wastedTokens;
  if (check.wastedMs !== undefined) attributes[sc.ATTR_TOOL_LOOP_WASTED_MS] = check.wastedMs;
  if (check.budgetExceeded !== undefined)
    attributes[sc.ATTR_TOOL_LOOP_BUDGET] = check.budgetExceeded === 'tokens' ? sc.BUDGET_TOKENS : sc.BUDGET_TIME;
  if (verdict.period !== undefined) attributes[sc.ATTR_TOOL_LOOP_PERIOD] = verdict.period;
  const { window } = check;
  if (window) {
    attributes[sc.ATTR_TOOL_LOOP_LOOP_SIGNATURES] = [...window.signatures];
    attributes[sc.ATTR_TOOL_LOOP_WINDOW_CALL_IDS] = [...window.callIds];
    attributes[sc.ATTR_TOOL_LOOP_WINDOW_ARGS_HASHES] = [...window.argsHashes];
    attributes[sc.ATTR_TOOL_LOOP_WINDOW_RESULT_HASHES] = [...window.resultHashes];
    if (window.firstCallId !== undefined) attributes[sc.ATTR_TOOL_LOOP_FIRST_CALL_ID] = window.firstCallId;
  }
  return attributes;
}
