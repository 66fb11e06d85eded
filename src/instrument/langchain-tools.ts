import {
  cloneWith,
  guardToolFunction,
  isBlockedToolResult,
  stringProperty,
  type GuardToolsOptions,
} from './guard-tool-function.js';

/** What `guardLangChainTools` needs of a LangChain tool: its name (and, at run time, `_call`). */
export interface LangChainToolShape {
  readonly name: string;
}

type ToolCall = (input: unknown, runManager: unknown, config: unknown) => unknown;

/**
 * Guards LangChain / LangGraph tools (`tool(...)`, `DynamicStructuredTool`, any `StructuredTool`
 * of `@langchain/core` 1.x): each call runs inside `traceToolCall` after LangChain parsed its
 * input, so a call the processor finds critical is **not executed**; the model gets OpenClaw's
 * blocked result text as the tool message (or the tool throws, with `onBlocked: 'throw'`). With
 * OpenInference or OpenLLMetry, the instrumentation's tool span (judged at its end) and the
 * guarded span are one call. Returns copies of the tools (same class; `_call` guarded); the
 * given ones are not changed. Typed structurally: no dependency on LangChain.
 *
 * ```ts
 * createReactAgent({ llm, tools: guardLangChainTools([lookupOrder], { tracer }) });
 * ```
 */
export function guardLangChainTools<T extends LangChainToolShape>(
  tools: readonly T[],
  options: GuardToolsOptions,
): T[] {
  return tools.map((tool) => {
    const call = (tool as unknown as { _call?: unknown })._call;
    if (typeof call !== 'function') return tool;
    const guarded = guardToolFunction(
      tool.name,
      options,
      (_input: unknown, _runManager: unknown, config: unknown) => stringProperty(config, 'toolCall', 'id'),
      (input: unknown, runManager: unknown, config: unknown) =>
        (call as ToolCall).call(tool, input, runManager, config),
    );
    return cloneWith(tool, {
      // A tool message's content is text or content blocks: the model gets the blocked result's.
      _call: async (input: unknown, runManager: unknown, config: unknown) => {
        const result = await guarded(input, runManager, config);
        return isBlockedToolResult(result) ? result.content : result;
      },
    });
  });
}
