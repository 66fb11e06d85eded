import { context, diag, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { canonicalString } from '../engine/hashing/canonical.js';
import type { OutcomeHash, ToolOutcome } from '../engine/hashing/outcome-hash.js';
import { ToolLoopBlockedError } from '../engine/errors/tool-loop-blocked-error.js';
import { toolLoopSystemNote } from '../engine/system-note.js';
import { HelperRequest, type HelperBridge } from '../otel/helper-bridge.js';
import { getToolLoopVerdict, type ToolSpanVerdict } from '../otel/loop-event.js';
import * as sc from '../semconv.js';
import { boundedText } from '../util/bounded-text.js';
import { RunRecovery } from './run-recovery.js';
import {
  appendSystemNote,
  toolLoopBlockedResult,
  type ToolLoopBlockedResult,
  type ToolLoopIntervention,
} from './tool-loop-results.js';

/** A tool call to trace. */
export interface TraceToolCallOptions<A> {
  /** Tool name (`gen_ai.tool.name`). */
  name: string;
  /** Parameters as the tool receives them; hashed, not recorded unless `recordContent`. */
  args: A;
  /** Tool call id (`gen_ai.tool.call.id`). */
  callId?: string;
  /**
   * What a blocked call returns: `'result'` (default) returns OpenClaw's blocked tool result
   * for the model; `'throw'` rejects with the `ToolLoopBlockedError`.
   */
  onBlocked?: 'result' | 'throw';
  /** Also record raw arguments and result as `gen_ai.tool.call.*` attributes. Default `false`. */
  recordContent?: boolean;
  /**
   * Append OpenClaw's system note to the result of a call that drew a (non-suppressed) loop
   * warning, after its outcome was hashed (see {@link ToolCallContext.systemNote}). Default `true`.
   */
  appendWarningNote?: boolean;
}

/** What the tool body receives. */
export interface ToolCallContext {
  readonly span: Span;
  /** OpenClaw's warning message when this call drew a (non-suppressed) loop warning. */
  readonly warning?: string;
  /**
   * OpenClaw's note for the model on a warned call, `[System note: Tool-loop warning after N
   * repeated calls. …]`. `traceToolCall` appends it to a string or OpenClaw-shaped result itself;
   * a body that returns another shape places it where the model will read it.
   */
  readonly systemNote?: string;
}

/** One member of a batch for {@link traceToolCallBatch}: the call and the body that runs it. */
export interface ToolCallBatchEntry<A = unknown, R = unknown> extends TraceToolCallOptions<A> {
  readonly execute: (call: ToolCallContext) => Promise<R> | R;
}

/** A member's span, once started, with the processor's answer. */
interface Admitted {
  readonly span: Span;
  readonly context: Context;
  readonly bridge: HelperBridge | undefined;
  readonly verdict: ToolSpanVerdict | undefined;
}

/**
 * Traces one tool call. Starts an `execute_tool <name>` span; the processor that sees it start
 * hashes the arguments (`tool_loop.args_hash`, with its seed) and judges it synchronously. On a
 * critical verdict `execute` is **not** called and the blocked result is returned (or thrown, per
 * `onBlocked`): inside a {@link traceRun} the run's first critical is its one recovery turn (the
 * result tells the model to reassess), and the next critical ends the run (`terminate: true`,
 * and the run's signal aborts with the `ToolLoopBlockedError`), as OpenClaw does. Otherwise runs
 * `execute`, records the hashed outcome (result or error) on the span, appends OpenClaw's system
 * note to a warned call's result, and ends the span. A batch of one {@link traceToolCallBatch}.
 */
export async function traceToolCall<A, R>(
  tracer: Tracer,
  options: TraceToolCallOptions<A>,
  execute: (call: ToolCallContext) => Promise<R> | R,
): Promise<R | ToolLoopBlockedResult> {
  const [result] = await traceToolCallBatch<R>(tracer, [{ ...options, execute }]);
  return result;
}

/**
 * Traces the tool calls of one assistant turn as a batch, as OpenClaw admits them: every member
 * is judged before any runs, and each earlier member counts as a no-progress veto for the later
 * ones (a batch `[poll, poll]` after 19 identical polls is critical on its second member). When a
 * member is critical, no member runs: it gets the recovery text (or, on the run's second critical,
 * the text that ends the run) and the others the sibling text, and no member after it is started.
 * Otherwise the members run one after the other, in order, each in its own span as
 * {@link traceToolCall} runs one. Resolves to the results in the members' order; rejects only for
 * invalid options, a member whose `onBlocked` is `'throw'` when blocked, or a body that throws.
 * After a body throws, the later members do not run; their spans end without an outcome (every
 * span started here ends, whatever the members do).
 */
export async function traceToolCallBatch<R>(
  tracer: Tracer,
  calls: ReadonlyArray<ToolCallBatchEntry<unknown, R>>,
): Promise<Array<R | ToolLoopBlockedResult>> {
  // Bounded as the processor bounds every tool name it reads, so the args hash names the same tool.
  const names = calls.map((call) => (typeof call?.name === 'string' ? boundedText(call.name.trim()) : ''));
  if (names.some((name) => name === '')) throw new TypeError('traceToolCall: options.name must be a non-blank string');
  const parent = context.active();
  const recovery = RunRecovery.of(parent);
  if (recovery?.terminated) return calls.map((call, i) => refusedAfterEnd(call, names[i]));
  const admitted: Admitted[] = [];
  // Members whose span is ended (or will be, by whoever took it on); the rest are ended below.
  let settled = 0;
  try {
    let trigger = -1;
    for (let i = 0; i < calls.length && trigger < 0; i += 1) {
      const member = admit(tracer, parent, calls[i], names[i]);
      admitted.push(member);
      if (member.verdict?.level === sc.LEVEL_CRITICAL) trigger = i;
    }
    if (trigger >= 0) {
      settled = admitted.length;
      return refuseBatch(calls, names, admitted, trigger, recovery);
    }
    const results: Array<R | ToolLoopBlockedResult> = [];
    for (let i = 0; i < calls.length; i += 1) {
      settled = i + 1;
      results.push(await run(calls[i], names[i], admitted[i]));
    }
    return results;
  } finally {
    // A member that never ran (an earlier body threw, or admitting a later member failed)
    // ends without an outcome: every span started here ends, and no run waits on it.
    for (let i = settled; i < admitted.length; i += 1) admitted[i].span.end();
  }
}

/** Starts a member's span; the processor that sees it start hashes and judges the call. */
function admit(tracer: Tracer, parent: Context, options: TraceToolCallOptions<unknown>, name: string): Admitted {
  const attributes: Record<string, string | boolean> = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: name,
  };
  if (options.callId) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = options.callId;
  if (options.recordContent) recordArguments(attributes, options.args);
  // The processor that sees the span start hashes the arguments with its own seed and writes
  // tool_loop.args_hash before judging the call; the outcome is hashed the same way later.
  const { request, context: callContext } = HelperRequest.start(parent, { toolName: name, params: options.args });
  const span = tracer.startSpan(`${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`, { attributes }, callContext);
  const bridge = request.close();
  return { span, context: trace.setSpan(callContext, span), bridge, verdict: getToolLoopVerdict(span) };
}

/** No member runs: the trigger gets the intervention text, the others the sibling text. */
function refuseBatch<R>(
  calls: ReadonlyArray<ToolCallBatchEntry<unknown, R>>,
  names: readonly string[],
  admitted: readonly Admitted[],
  trigger: number,
  recovery: RunRecovery | undefined,
): Array<R | ToolLoopBlockedResult> {
  const verdict = admitted[trigger].verdict!;
  const stage = recovery?.critical() ?? 'recovery';
  const intervention: ToolLoopIntervention = {
    kind: 'critical-tool-loop',
    stage,
    toolName: names[trigger],
    ...(calls[trigger].callId ? { toolCallId: calls[trigger].callId } : {}),
    detector: verdict.detector,
    count: verdict.count,
    reason: verdict.message,
  };
  for (const [i, member] of admitted.entries()) {
    const value = i === trigger ? stage : sc.INTERVENTION_SIBLING;
    guarded('record the intervention', () => member.span.setAttribute(sc.ATTR_TOOL_LOOP_INTERVENTION, value));
    member.span.end();
  }
  const error =
    verdict.error ??
    new ToolLoopBlockedError(verdict.message, {
      detector: verdict.detector,
      count: verdict.count,
      toolName: names[trigger],
    });
  if (stage === 'terminate') recovery?.terminate(error);
  if (calls[trigger].onBlocked === 'throw') throw error;
  return calls.map((_call, i) => toolLoopBlockedResult(intervention, i === trigger));
}

/** A call asked for after a critical ended the run: not run, told that the run is stopping. */
function refusedAfterEnd(call: TraceToolCallOptions<unknown>, name: string): ToolLoopBlockedResult {
  return toolLoopBlockedResult(
    {
      kind: 'critical-tool-loop',
      stage: 'terminate',
      toolName: name,
      ...(call.callId ? { toolCallId: call.callId } : {}),
      detector: 'global_circuit_breaker',
      count: 0,
      reason: 'Critical tool-loop recovery failed; this run is stopping.',
    },
    false,
  );
}

/** Runs an admitted member in its span: the body, the hashed outcome, the system note. */
async function run<R>(call: ToolCallBatchEntry<unknown, R>, name: string, member: Admitted): Promise<R> {
  const { span, bridge, verdict } = member;
  const warned = verdict?.level === sc.LEVEL_WARNING && verdict.emitted;
  const warning = warned ? verdict.message : undefined;
  const systemNote = warned ? toolLoopSystemNote(verdict.count) : undefined;
  const body: ToolCallContext = warning === undefined ? { span } : { span, warning, systemNote: systemNote! };
  let result: R;
  try {
    result = await context.with(member.context, () => call.execute(body));
  } catch (error) {
    guarded('record the outcome', () => {
      writeOutcome(span, bridge?.hashOutcome({ toolName: name, params: call.args, error, isError: true }));
      const message = error instanceof Error ? error.message : safeText(error);
      span.recordException(error instanceof Error ? error : message);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    });
    span.end();
    throw error;
  }
  guarded('record the outcome', () => {
    writeOutcome(span, bridge?.hashOutcome({ toolName: name, params: call.args, result } satisfies ToolOutcome));
    if (call.recordContent && result !== undefined)
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, safeJson(result));
  });
  span.end();
  // After the outcome was hashed: the note must not change the no-progress hashes.
  return systemNote !== undefined && call.appendWarningNote !== false ? appendSystemNote(result, systemNote) : result;
}

/** The hashed outcome as the span attributes the processor reads at the span's end. */
function writeOutcome(span: Span, outcome: OutcomeHash | undefined): void {
  if (!outcome) return;
  if (outcome.resultHash !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_RESULT_HASH, outcome.resultHash);
  if (outcome.unknownToolName !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL, outcome.unknownToolName);
  if (outcome.outcomeKind !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_OUTCOME_KIND, outcome.outcomeKind);
  if (outcome.failureIdentityHash !== undefined)
    span.setAttribute(sc.ATTR_TOOL_LOOP_FAILURE_IDENTITY_HASH, outcome.failureIdentityHash);
  if (outcome.typedError !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_TYPED_ERROR, outcome.typedError);
  if (outcome.mutationTargetHash !== undefined)
    span.setAttribute(sc.ATTR_TOOL_LOOP_MUTATION_TARGET_HASH, outcome.mutationTargetHash);
  if (outcome.noProgress === true) span.setAttribute(sc.ATTR_TOOL_LOOP_NO_PROGRESS, true);
}

function recordArguments(attributes: Record<string, string | boolean>, args: unknown): void {
  try {
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = safeJson(args);
  } catch (error) {
    diag.error(`tool-loop-guard: traceToolCall could not record the arguments: ${safeText(error)}`);
  }
}

/** Runs a recording step; a failure is logged, never thrown at the agent. */
function guarded(what: string, record: () => void): void {
  try {
    record();
  } catch (error) {
    diag.error(`tool-loop-guard: traceToolCall could not ${what}: ${safeText(error)}`);
  }
}

/** JSON text of a value for `recordContent`; the canonical form when `JSON.stringify` cannot (cycles, depth, getters). */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? safeText(value);
  } catch {
    return canonicalString(value);
  }
}

function safeText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
