import { randomUUID } from 'node:crypto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { traceRun, traceToolCall } from 'tool-loop-guard';
import { afterAll, afterEach, describe } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { guardHarness, useAsyncContext, type GuardHarness } from '../harness/guard.js';
import { callToolLoop, connectMcpClient, lookupResult, startMcpServer } from '../harness/mcp.js';
import { TOOL_NAME, ToolBody, type Variant } from '../harness/scenario.js';

afterAll(useAsyncContext());
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

const clientToolSpan = (span: ReadableSpan): boolean => span.attributes['gen_ai.tool.name'] === TOOL_NAME;

/**
 * The agent's side of MCP: each `callTool` inside `traceToolCall`, the loop inside `traceRun`
 * whose signal goes with each request. The server (Streamable HTTP on 127.0.0.1) runs the
 * scenario's tool unguarded.
 */
async function runClient(variant: Variant): Promise<VariantRun> {
  const harness = await guardHarness();
  harnesses.push(harness);
  const tracer = harness.provider.getTracer('order-agent');
  const body = new ToolBody(variant);
  const server = await startMcpServer((args) => lookupResult(body, args));
  const client = await connectMcpClient(server.url);
  const outcome = await settle(() =>
    traceRun(tracer, { runId: randomUUID() }, ({ signal }) =>
      callToolLoop(body, (args, index) =>
        traceToolCall(tracer, { name: TOOL_NAME, args, callId: `call-${index}` }, () =>
          client.callTool({ name: TOOL_NAME, arguments: { ...args } }, undefined, { signal }),
        ),
      ),
    ),
  );
  await client.close();
  await server.close();
  return { harness, body, outcome, isCallSpan: clientToolSpan };
}

describe('an MCP client (Streamable HTTP) with traceToolCall around callTool, inside traceRun', () => {
  variantTests({}, runClient);
});
