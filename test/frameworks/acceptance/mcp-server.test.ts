import { context, propagation, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { traceToolCall, withRun } from 'tool-loop-guard';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { guardHarness, type GuardHarness } from '../harness/guard.js';
import { callToolLoop, connectMcpClient, instrumentMcp, lookupResult, startMcpServer, type ToolHandler } from '../harness/mcp.js';
import { TOOL_NAME, ToolBody, type Variant } from '../harness/scenario.js';

// The agent's side: a registered provider (context manager, W3C propagator) without a guard, its
// span around each call propagated to the server by OpenInference's MCP instrumentation.
const agentProvider = new NodeTracerProvider();
beforeAll(() => {
  agentProvider.register();
  instrumentMcp();
});
afterAll(async () => {
  await agentProvider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

const serverToolSpan = (span: ReadableSpan): boolean => span.attributes['gen_ai.tool.name'] === TOOL_NAME;

interface SessionRun extends VariantRun {
  readonly results: unknown[];
  readonly sessions: string[];
}

/**
 * One MCP session: the server (its own provider, the guard first) wraps its tool handler in
 * `traceToolCall`, inside `withRun` keyed by the MCP session id (`scoped`), or not; the client
 * calls the tool 30 times, each call inside a span of the agent's.
 */
async function runSession(variant: Variant, scoped = true): Promise<SessionRun> {
  const harness = await guardHarness();
  harnesses.push(harness);
  const tracer = harness.provider.getTracer('order-server');
  const body = new ToolBody(variant);
  const guarded: ToolHandler = (args) => traceToolCall(tracer, { name: TOOL_NAME, args }, () => lookupResult(body, args));
  const server = await startMcpServer(scoped ? (args, extra) => withRun({ runId: `mcp-session:${extra.sessionId}` }, () => guarded(args, extra)) : guarded);
  const client = await connectMcpClient(server.url);
  const agent = agentProvider.getTracer('agent');
  let results: unknown[] = [];
  const outcome = await settle(async () => {
    results = await callToolLoop(body, (args) =>
      agent.startActiveSpan(`call ${TOOL_NAME}`, (span) => client.callTool({ name: TOOL_NAME, arguments: { ...args } }).finally(() => span.end())),
    );
  });
  await client.close();
  await server.close();
  return { harness, body, outcome, isCallSpan: serverToolSpan, results, sessions: server.sessions };
}

describe('an MCP server (Streamable HTTP) guarding its tool with withRun({ runId: <MCP session id> }) + traceToolCall, OpenInference MCP context propagation', () => {
  variantTests({}, (variant) => runSession(variant));

  it('the blocked result reaches the client as an MCP tool error, and the calls had the client as remote parent', async () => {
    const run = await runSession('loop');
    expect(run.body.executions).toBe(20);
    const blocked = run.results[20] as { isError?: boolean; content: Array<{ type: string; text: string }> };
    expect(blocked.isError).toBe(true);
    expect(blocked.content[0].text).toMatch(/^CRITICAL: Called lookup_order with identical arguments/);
    const warned = run.results[10] as { content: Array<{ text: string }> };
    expect(warned.content.at(-1)?.text).toMatch(/^\[System note: Tool-loop warning/);
    const spans = run.harness.exported().filter(serverToolSpan);
    expect(spans.every((span) => span.parentSpanContext?.isRemote === true)).toBe(true);
    expect(run.sessions).toHaveLength(1);
  });

  it('keeps each MCP session a run of its own', async () => {
    const harness = await guardHarness();
    harnesses.push(harness);
    const tracer = harness.provider.getTracer('order-server');
    const body = new ToolBody('loop');
    const server = await startMcpServer((args, extra) =>
      withRun({ runId: `mcp-session:${extra.sessionId}` }, () => traceToolCall(tracer, { name: TOOL_NAME, args }, () => lookupResult(body, args))),
    );
    const clients = [await connectMcpClient(server.url), await connectMcpClient(server.url)];
    // 2 sessions x 15 identical calls, interleaved: one run would be critical at its 21st call.
    for (let index = 0; index < 15; index += 1)
      for (const client of clients) await client.callTool({ name: TOOL_NAME, arguments: { orderId: 'order-42' } });
    await Promise.all(clients.map((client) => client.close()));
    await server.close();
    expect(server.sessions).toHaveLength(2);
    expect(body.executions).toBe(30);
    expect(harness.events.map((event) => `${event.level}@${event.runId}`).sort()).toEqual(
      server.sessions.map((session) => `warning@mcp-session:${session}`).sort(),
    );
  });

  it('without withRun each call is a run of its own (its remote parent): all 30 run undetected', async () => {
    const run = await runSession('loop', false);
    expect(run.body.executions).toBe(30);
    expect(run.harness.events).toEqual([]);
  });
});
