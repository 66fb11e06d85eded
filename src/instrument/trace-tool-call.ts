import { context, diag, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { canonicalString } from '../engine/hashing/canonical.js';
import { blockedToolResult, type BlockedToolResult } from '../engine/hashing/outcome-hash.js';
import { HelperRequest } from '../otel/helper-bridge.js';
import { getToolLoopVerdict } from '../otel/loop-event.js';
import * as sc from '../semconv.js';

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
}

/** What the tool body receives. */
export interface ToolCallContext {
  readonly span: Span;
  /**
   * OpenClaw's warning text when this call drew a (non-suppressed) loop warning: show it to
   * the model, e.g. append it to the tool result (the gap of OpenClaw issue #120449).
   */
  readonly warning?: string;
}

/**
 * Traces one tool call. Starts an `execute_tool <name>` span; the processor that sees it start
 * hashes the arguments (`tool_loop.args_hash`, with its seed) and judges it synchronously. On a critical verdict `execute` is **not** called and
 * the blocked result is returned (or thrown, per `onBlocked`). Otherwise runs `execute`,
 * records the hashed outcome (result or error) on the span and ends it.
 */
export async function traceToolCall<A, R>(
  tracer: Tracer,
  options: TraceToolCallOptions<A>,
  execute: (call: ToolCallContext) => Promise<R> | R,
): Promise<R | BlockedToolResult> {
  const name = typeof options?.name === 'string' ? options.name.trim() : '';
  if (name === '') throw new TypeError('traceToolCall: options.name must be a non-blank string');
  const attributes: Record<string, string | boolean> = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: name,
  };
  if (options.callId) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = options.callId;
  if (options.recordContent) recordArguments(attributes, options.args);

  // The processor that sees the span start hashes the arguments with its own seed and writes
  // tool_loop.args_hash before judging the call; the outcome is hashed the same way below.
  const { request, context: callContext } = HelperRequest.start(context.active(), {
    toolName: name,
    params: options.args,
  });
  return tracer.startActiveSpan(
    `${sc.GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`,
    { attributes },
    callContext,
    async (span) => {
      const bridge = request.close();
      const verdict = getToolLoopVerdict(span);
      if (verdict?.level === sc.LEVEL_CRITICAL) {
        span.end();
        if (options.onBlocked === 'throw' && verdict.error) throw verdict.error;
        return blockedToolResult(verdict.message);
      }
      const warning = verdict?.level === sc.LEVEL_WARNING && verdict.emitted ? verdict.message : undefined;
      let result: R;
      try {
        result = await execute(warning === undefined ? { span } : { span, warning });
      } catch (error) {
        recordOutcome(() => {
          const outcome = bridge?.hashOutcome({ toolName: name, params: options.args, error, isError: true });
          if (outcome?.resultHash !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_RESULT_HASH, outcome.resultHash);
          if (outcome?.unknownToolName !== undefined)
            span.setAttribute(sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL, outcome.unknownToolName);
          const message = error instanceof Error ? error.message : safeText(error);
          span.recordException(error instanceof Error ? error : message);
          span.setStatus({ code: SpanStatusCode.ERROR, message });
        });
        span.end();
        throw error;
      }
      recordOutcome(() => {
        const outcome = bridge?.hashOutcome({ toolName: name, params: options.args, result });
        if (outcome?.resultHash !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_RESULT_HASH, outcome.resultHash);
        if (options.recordContent && result !== undefined)
          span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, safeJson(result));
      });
      span.end();
      return result;
    },
  );
}

function recordArguments(attributes: Record<string, string | boolean>, args: unknown): void {
  try {
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = safeJson(args);
  } catch (error) {
    diag.error(`tool-loop-guard: traceToolCall could not record the arguments: ${safeText(error)}`);
  }
}

/** Records the outcome on the span; a failure to do so is logged, never thrown at the agent. */
function recordOutcome(record: () => void): void {
  try {
    record();
  } catch (error) {
    diag.error(`tool-loop-guard: traceToolCall could not record the outcome: ${safeText(error)}`);
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
