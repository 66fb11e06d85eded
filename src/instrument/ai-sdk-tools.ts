import { guardExecuteRecord, stringProperty, type GuardToolsOptions } from './guard-tool-function.js';

/**
 * Guards the Vercel AI SDK's `tools` (v5, v6, v7): each tool's `execute(input, options)` runs
 * inside `traceToolCall`, so a call the processor finds critical is **not executed** and
 * returns OpenClaw's blocked result to the model (or throws, with `onBlocked: 'throw'`).
 * The SDK's own tool span (`ai.toolCall`, or `execute_tool` with `@ai-sdk/otel`) and the
 * guarded span inside it are one call. Tools without `execute` are kept as they are. Returns
 * new tool objects; the given ones are not changed. The package does not depend on `ai`: the
 * tools are typed structurally.
 *
 * ```ts
 * await generateText({ model, tools: guardAiSdkTools({ lookup_order: tool({ ... }) }, { tracer }), ... });
 * ```
 */
export function guardAiSdkTools<T extends Record<string, object>>(tools: T, options: GuardToolsOptions): T {
  return guardExecuteRecord(
    tools,
    options,
    (_input, callOptions) => stringProperty(callOptions, 'toolCallId'),
    (tool, execute) => ({ ...tool, execute }),
  );
}
