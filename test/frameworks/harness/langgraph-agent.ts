import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { ScriptedToolCallingModel } from './langchain-model.js';
import { CALLS, TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

/** The scenario's tool, a `DynamicStructuredTool` around `execute`. */
export function lookupTool(body: ToolBody, execute: (args: LookupArgs) => Promise<unknown> = async (args) => body.run(args)) {
  return tool(execute, {
    name: TOOL_NAME,
    description: 'Looks up an order',
    schema: z.object({ orderId: z.string() }),
  });
}

/**
 * A LangGraph ReAct agent over the scripted model, with the scenario's tool around `execute`;
 * `guard` may replace the tool (e.g. with `guardLangChainTools`).
 */
export function langGraphAgent(
  body: ToolBody,
  execute?: (args: LookupArgs) => Promise<unknown>,
  guard: (tools: StructuredToolInterface[]) => StructuredToolInterface[] = (tools) => tools,
) {
  return createReactAgent({ llm: new ScriptedToolCallingModel(body.variant), tools: guard([lookupTool(body, execute)]) });
}

/** Each tool call is an agent step and a tools step; leave room for all of them and the answer. */
export const RECURSION_LIMIT = 2 * CALLS + 5;
