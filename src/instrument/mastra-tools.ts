import { cloneWith, guardExecuteRecord, stringProperty, type GuardToolsOptions } from './guard-tool-function.js';

/**
 * Guards Mastra tools (`createTool` from `@mastra/core/tools`, 1.x), keyed as the agent's
 * `tools`: each tool's `execute(inputData, context)` runs inside `traceToolCall`, so a call the
 * processor finds critical is **not executed** and returns OpenClaw's blocked result to the
 * model (or throws, with `onBlocked: 'throw'`). With `@mastra/otel-bridge`, Mastra's tool span
 * (judged at its end) and the guarded span inside it are one call. Returns copies of the tools
 * (same class); the given ones are not changed. Typed structurally: no dependency on Mastra.
 *
 * ```ts
 * new Agent({ ..., tools: guardMastraTools({ lookup_order: lookupOrder }, { tracer }) });
 * ```
 */
export function guardMastraTools<T extends Record<string, object>>(tools: T, options: GuardToolsOptions): T {
  return guardExecuteRecord(
    tools,
    options,
    (_input, context) => stringProperty(context, 'toolCallId') ?? stringProperty(context, 'agent', 'toolCallId'),
    (tool, execute) => cloneWith(tool, { execute }),
  );
}
