import type { Attributes } from '@opentelemetry/api';
import type { GuardAbort } from '../engine/loop-run.js';
import { guardWindowClosedMessage, type GuardWindowSummary } from '../engine/post-compaction-guard.js';
import type { RecoveryResolution } from '../engine/recovery/recovery-watch.js';
import type { LoopVerdict } from '../engine/types.js';
import * as sc from '../semconv.js';
import type { SpanScope } from '../spans/run-scope.js';
import type { CallVerdict, SpanStarted } from '../spans/span-guard.js';
import type { LoopEventFields } from './event-attributes.js';
import { verdictEventAttributes } from './verdict-attributes.js';

/**
 * One loop event as it leaves the process, wherever it goes (a span event, an evidence span,
 * the `tool_loop.events` counter): its name, the fields every event carries, and its own
 * attributes.
 */
export interface LoopEventRecord {
  readonly name: string;
  readonly fields: LoopEventFields;
  readonly extra: Attributes;
}

/** `tool_loop.action` of a verdict: `block` / `warn`, or `would_block` / `would_warn` in shadow mode. */
export function verdictAction(level: string, shadow: boolean): string {
  if (level === sc.LEVEL_CRITICAL) return shadow ? sc.ACTION_WOULD_BLOCK : sc.ACTION_BLOCK;
  return shadow ? sc.ACTION_WOULD_WARN : sc.ACTION_WARN;
}

/**
 * The event of a surfaced verdict on a tool call: `tool_loop.blocked` / `tool_loop.warning` (in
 * shadow mode `tool_loop.would_block` / `tool_loop.would_warn`). `shown`: the verdict as
 * exported (see `redactUnknownToolName`).
 */
export function verdictEvent(
  shown: LoopVerdict,
  check: CallVerdict['check'],
  scope: SpanScope,
  toolName: string,
  shadow: boolean,
): LoopEventRecord {
  const critical = shown.level === sc.LEVEL_CRITICAL;
  const name = critical
    ? shadow
      ? sc.EVENT_TOOL_LOOP_WOULD_BLOCK
      : sc.EVENT_TOOL_LOOP_BLOCKED
    : shadow
      ? sc.EVENT_TOOL_LOOP_WOULD_WARN
      : sc.EVENT_TOOL_LOOP_WARNING;
  return {
    name,
    fields: {
      detector: shown.detector,
      level: shown.level,
      action: verdictAction(shown.level, shadow),
      count: shown.count,
      message: shown.message,
      runId: scope.runId,
      toolName,
      agentId: scope.agentId,
    },
    extra: verdictEventAttributes(shown, check, shadow),
  };
}

/** The event of a post-compaction abort: `tool_loop.aborted` (in shadow mode `tool_loop.would_abort`). */
export function abortEvent(verdict: GuardAbort, scope: SpanScope, shadow: boolean): LoopEventRecord {
  return {
    name: shadow ? sc.EVENT_TOOL_LOOP_WOULD_ABORT : sc.EVENT_TOOL_LOOP_ABORTED,
    fields: {
      detector: verdict.detector,
      level: sc.LEVEL_CRITICAL,
      action: shadow ? sc.ACTION_WOULD_ABORT : sc.ACTION_ABORT,
      count: verdict.count,
      message: verdict.message,
      runId: scope.runId,
      toolName: verdict.toolName,
      agentId: scope.agentId,
    },
    extra: {
      [sc.ATTR_ERROR_TYPE]: sc.COMPACTION_LOOP_PERSISTED,
      [sc.ATTR_TOOL_LOOP_PRE_COMPACTION_REPEATS]: verdict.preCompactionRepeats,
    },
  };
}

/**
 * The event of a post-compaction window that closed without an abort:
 * `tool_loop.guard_window_closed`, with the calls it saw and how many repeated a (tool, args)
 * of the outcomes before the compaction.
 */
export function windowClosedEvent(summary: GuardWindowSummary, scope: SpanScope): LoopEventRecord {
  return {
    name: sc.EVENT_TOOL_LOOP_GUARD_WINDOW_CLOSED,
    fields: {
      detector: sc.COMPACTION_LOOP_PERSISTED,
      level: sc.LEVEL_WARNING,
      action: sc.ACTION_REPORT,
      count: summary.preCompactionRepeats,
      message: guardWindowClosedMessage(summary),
      runId: scope.runId,
      toolName: '',
      agentId: scope.agentId,
    },
    extra: {
      [sc.ATTR_TOOL_LOOP_TOOL_CALLS]: summary.toolCalls,
      [sc.ATTR_TOOL_LOOP_PRE_COMPACTION_REPEATS]: summary.preCompactionRepeats,
      [sc.ATTR_TOOL_LOOP_REPEATED_TOOLS]: summary.repeatedTools.join(','),
    },
  };
}

/** The event of a compaction retry that armed the run's post-compaction guard: `tool_loop.guard_armed`. */
export function armedEvent(armed: NonNullable<SpanStarted<unknown>['armed']>, scope: SpanScope): LoopEventRecord {
  return {
    name: sc.EVENT_TOOL_LOOP_GUARD_ARMED,
    fields: {
      detector: sc.COMPACTION_LOOP_PERSISTED,
      level: sc.LEVEL_WARNING,
      action: sc.ACTION_ARM,
      count: 0,
      message: armed.message,
      runId: scope.runId,
      toolName: '',
      agentId: scope.agentId,
    },
    extra: { [sc.ATTR_TOOL_LOOP_WINDOW_SIZE]: armed.windowSize },
  };
}

/**
 * The labels of the `tool_loop.recovery` counter for a settled watch: its outcome, the action of
 * the verdict it followed, detector, tool and agent.
 */
export function recoveryLabels(
  resolution: RecoveryResolution,
  agentId: string | undefined,
  shadow: boolean,
): Attributes {
  const labels: Attributes = {
    [sc.ATTR_TOOL_LOOP_RECOVERY_OUTCOME]: resolution.outcome,
    [sc.ATTR_TOOL_LOOP_ACTION]: verdictAction(resolution.level, shadow),
    [sc.ATTR_TOOL_LOOP_DETECTOR]: resolution.detector,
    [sc.ATTR_GEN_AI_TOOL_NAME]: resolution.toolName,
  };
  if (agentId !== undefined) labels[sc.ATTR_GEN_AI_AGENT_ID] = agentId;
  return labels;
}
