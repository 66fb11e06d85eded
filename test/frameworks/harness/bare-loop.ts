import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ScriptedToolCallingModel } from './langchain-model.js';
import { lookupTool } from './langgraph-agent.js';
import type { ToolBody } from './scenario.js';

/**
 * A hand-written agent loop with no graph and no enclosing span: the scripted model is invoked,
 * each tool call it asks for is invoked, until it answers. Each `invoke` is a top-level LangChain
 * run, so an instrumentation that parents spans to the active span gives each its own trace.
 */
export async function bareToolLoop(body: ToolBody, signal?: AbortSignal): Promise<unknown> {
  const model = new ScriptedToolCallingModel(body.variant);
  const tool = lookupTool(body);
  const messages: BaseMessage[] = [new HumanMessage('Where is order 42?')];
  for (;;) {
    const reply = await model.invoke(messages, { signal });
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content;
    for (const call of reply.tool_calls) messages.push(await tool.invoke(call, { signal }));
  }
}

/** OpenLLMetry's LangChain tool spans: task spans of operation `execute_tool`. */
export const openLlmetryTool = (span: ReadableSpan): boolean =>
  span.attributes['traceloop.span.kind'] === 'task' && span.attributes['gen_ai.operation.name'] === 'execute_tool';
