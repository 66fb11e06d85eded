import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Observability } from '@mastra/observability';
import { OtelBridge } from '@mastra/otel-bridge';
import { z } from 'zod';
import { scriptedModelV3 } from './ai-sdk-models.js';
import { TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

/**
 * A Mastra agent over the scripted AI SDK model (Mastra accepts AI SDK language models), with
 * Mastra's OTel path: `Observability` with an `OtelBridge`, which creates real OTel spans
 * through the global tracer provider.
 */
export function mastraAgent(
  body: ToolBody,
  execute: (args: LookupArgs) => Promise<unknown> = async (args) => body.run(args),
  guard: <T extends Record<string, object>>(tools: T) => T = (tools) => tools,
): Agent {
  const lookup = createTool({
    id: TOOL_NAME,
    description: 'Looks up an order',
    inputSchema: z.object({ orderId: z.string() }),
    execute: async (input) => execute(input),
  });
  const agent = new Agent({
    id: 'order-agent',
    name: 'order-agent',
    instructions: 'Find the order.',
    model: scriptedModelV3(body.variant),
    tools: guard({ [TOOL_NAME]: lookup }),
  });
  const mastra = new Mastra({
    agents: { orderAgent: agent },
    logger: false,
    observability: new Observability({ configs: { default: { serviceName: 'framework-tests', bridge: new OtelBridge() } } }),
  });
  return mastra.getAgent('orderAgent');
}
