import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as ClientStreamableHTTPModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as ServerStreamableHTTPModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { argsFor, CALLS, TOOL_NAME, type LookupArgs, type ToolBody } from './scenario.js';

/**
 * OpenInference's MCP instrumentation: the client transport injects the active context into each
 * request's `_meta`, the server transport extracts it around the handler (a remote parent). It
 * patches the transports' prototypes, once per process.
 */
export function instrumentMcp(): void {
  new MCPInstrumentation().manuallyInstrument({
    clientStreamableHTTPModule: ClientStreamableHTTPModule,
    serverStreamableHTTPModule: ServerStreamableHTTPModule,
  });
}

/** The arguments and extra a tool handler receives. */
export type ToolHandler = (args: LookupArgs, extra: { sessionId?: string }) => Promise<CallToolResult> | CallToolResult;

/** The scenario's tool as an MCP result: the body's text. */
export function lookupResult(body: ToolBody, args: LookupArgs): CallToolResult {
  return { content: [{ type: 'text', text: body.run(args) }] };
}

export interface McpServerHandle {
  readonly url: URL;
  /** Sessions opened so far. */
  readonly sessions: string[];
  close(): Promise<void>;
}

/**
 * An MCP server over Streamable HTTP on 127.0.0.1, one `McpServer` and transport per session
 * (the SDK's stateful set-up: a session id per `initialize`), exposing the scenario's tool.
 */
export async function startMcpServer(handler: ToolHandler): Promise<McpServerHandle> {
  const transports = new Map<string, ServerStreamableHTTPModule.StreamableHTTPServerTransport>();
  const sessions: string[] = [];
  const http = createServer((req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    const transport = known ?? newSession();
    void transport.handleRequest(req, res);
  });
  function newSession(): ServerStreamableHTTPModule.StreamableHTTPServerTransport {
    const transport = new ServerStreamableHTTPModule.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        sessions.push(id);
      },
    });
    const server = new McpServer({ name: 'orders', version: '1.0.0' });
    server.registerTool(
      TOOL_NAME,
      { description: 'Looks up an order', inputSchema: { orderId: z.string() } },
      (args, extra) => handler(args, extra),
    );
    void server.connect(transport);
    return transport;
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    sessions,
    async close() {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve, reject) => http.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** An MCP client connected to `url` over Streamable HTTP. */
export async function connectMcpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'order-agent', version: '1.0.0' });
  await client.connect(new ClientStreamableHTTPModule.StreamableHTTPClientTransport(url));
  return client;
}

/**
 * The scripted agent's side: CALLS calls of the scenario's tool, each through `call` (which
 * sends it), stopping early when `call` rejects. Returns what the server answered.
 */
export async function callToolLoop(
  body: Pick<ToolBody, 'variant'>,
  call: (args: LookupArgs, index: number) => Promise<unknown>,
): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let index = 0; index < CALLS; index += 1) results.push(await call(argsFor(body.variant, index), index));
  return results;
}
