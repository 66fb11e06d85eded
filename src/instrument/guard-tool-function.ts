import type { Tracer } from '@opentelemetry/api';
import type { BlockedToolResult } from '../engine/hashing/outcome-hash.js';
import { isRecord } from '../util/is-record.js';
import { traceToolCall } from './trace-tool-call.js';

/** How the framework tool wrappers (`guardAiSdkTools`, `guardLangChainTools`, `guardMastraTools`) guard each call. */
export interface GuardToolsOptions {
  /** The tracer of the provider the processor is on: each call is a `traceToolCall` span. */
  readonly tracer: Tracer;
  /**
   * What a blocked call does instead of running: `'result'` (default) returns OpenClaw's blocked
   * result to the model; `'throw'` rejects with the `ToolLoopBlockedError`.
   */
  readonly onBlocked?: 'result' | 'throw';
  /**
   * Append OpenClaw's system note (`[System note: Tool-loop warning after N repeated calls. …]`)
   * to the result of the call that drew a warning, so the model reads it: after a blank line for
   * a string, as one more text item for an OpenClaw-shaped result (`traceToolCall`'s
   * `appendWarningNote`). Default `true`. (The result is hashed before.)
   */
  readonly appendWarning?: boolean;
  /** Also record raw arguments and result on the span (`gen_ai.tool.call.*`). Default `false`. */
  readonly recordContent?: boolean;
}

/** Whether a value is the result `traceToolCall` returns for a blocked call. */
export function isBlockedToolResult(value: unknown): value is BlockedToolResult {
  return isRecord(value) && isRecord(value.details) && value.details.deniedReason === 'tool-loop';
}

/**
 * `execute` guarded as one `traceToolCall` per call: its first argument is the call's
 * arguments, `callIdOf` finds the model's call id among the arguments. The processor judges the
 * call as its span starts; a blocked call never runs. Inside a framework's own tool span the two
 * spans are one call (judged and recorded once).
 */
export function guardToolFunction<A extends unknown[], R>(
  name: string,
  options: GuardToolsOptions,
  callIdOf: (...args: A) => string | undefined,
  execute: (...args: A) => R | Promise<R>,
): (...args: A) => Promise<R | BlockedToolResult> {
  return (...args: A) =>
    traceToolCall(
      options.tracer,
      {
        name,
        args: args[0],
        callId: callIdOf(...args),
        onBlocked: options.onBlocked,
        recordContent: options.recordContent,
        appendWarningNote: options.appendWarning !== false,
      },
      () => execute(...args),
    );
}

/** A string-valued property of an object argument, if any (frameworks pass call ids in option objects). */
export function stringProperty(value: unknown, ...path: string[]): string | undefined {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return typeof current === 'string' && current !== '' ? current : undefined;
}

/** A copy of a class instance (same prototype, own fields copied) with `overrides` as own properties. */
export function cloneWith<T extends object>(instance: T, overrides: Record<string, unknown>): T {
  return Object.assign(Object.create(Object.getPrototypeOf(instance) as object) as T, instance, overrides);
}

/**
 * A record of tools (`{ name: tool }`) whose `execute(input, options)` functions are guarded by
 * {@link guardToolFunction}; `copy` makes the guarded tool from the original and its guarded
 * `execute`. Tools without `execute` are kept as they are.
 */
export function guardExecuteRecord<T extends Record<string, object>>(
  tools: T,
  options: GuardToolsOptions,
  callIdOf: (input: unknown, callOptions: unknown) => string | undefined,
  copy: (tool: object, execute: (input: unknown, callOptions: unknown) => Promise<unknown>) => object,
): T {
  const guarded: Record<string, object> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: unknown }).execute;
    guarded[name] =
      typeof execute === 'function'
        ? copy(
            tool,
            guardToolFunction(name, options, callIdOf, (input: unknown, callOptions: unknown) =>
              (execute as (input: unknown, callOptions: unknown) => unknown).call(tool, input, callOptions),
            ),
          )
        : tool;
  }
  return guarded as T;
}
