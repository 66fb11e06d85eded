import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai6';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { scriptedModelV3 } from '../harness/ai-sdk-models.js';
import { createGuard } from '../harness/guard.js';
import { CALLS, ToolBody, TOOL_NAME, type Variant } from '../harness/scenario.js';
import type { LoopAbortEvent, LoopEvent, ToolLoopSpanProcessor } from 'tool-loop-guard';

/** What an OTLP/HTTP receiver on 127.0.0.1 was sent: the JSON bodies of `/v1/traces`. */
const received: unknown[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.url === '/v1/traces') received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

const events: LoopEvent[] = [];
const aborts: LoopAbortEvent[] = [];
const inMemory = new InMemorySpanExporter();
let loopGuard: ToolLoopSpanProcessor;
let batch: BatchSpanProcessor;
let view: SimpleSpanProcessor;
let sdk: NodeSDK;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // The README's quick start: the guard BEFORE the exporting processor; NodeSDK installs the context
  // manager. The in-memory exporter after them is the test's view of what was exported.
  loopGuard = await createGuard(events, aborts);
  batch = new BatchSpanProcessor(new OTLPTraceExporter());
  view = new SimpleSpanProcessor(inMemory);
  sdk = new NodeSDK({ spanProcessors: [loopGuard, batch, view] });
  sdk.start();
});
afterAll(async () => {
  await sdk.shutdown();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  events.length = 0;
  aborts.length = 0;
  inMemory.reset();
  received.length = 0;
});

/** The README's AI SDK recipe on that pipeline: `metadata.runId`, and `runSignal(runId)` as the abort signal. */
async function runAgent(variant: Variant): Promise<VariantRun> {
  const body = new ToolBody(variant);
  const runId = randomUUID();
  const outcome = await settle(() =>
    generateText({
      model: scriptedModelV3(variant),
      tools: { [TOOL_NAME]: tool({ inputSchema: z.object({ orderId: z.string() }), execute: async (args) => body.run(args) }) },
      prompt: 'Where is order 42?',
      stopWhen: stepCountIs(CALLS + 1),
      experimental_telemetry: { isEnabled: true, tracer: trace.getTracer('my-agent'), metadata: { runId } },
      abortSignal: loopGuard.runSignal(runId),
    }),
  );
  // NodeSDK's resource detectors settle asynchronously; exports wait for them.
  await Promise.all([batch.forceFlush(), view.forceFlush()]);
  return { harness: { events, exported: () => inMemory.getFinishedSpans() }, body, outcome, isCallSpan: (span: ReadableSpan) => span.name === 'ai.toolCall' };
}

interface OtlpSpan {
  name: string;
  events?: Array<{ name: string }>;
}

describe('the README quick start: NodeSDK with the guard before a BatchSpanProcessor(OTLPTraceExporter), the AI SDK 6 recipe', () => {
  variantTests({}, runAgent);

  it('the OTLP export carries tool_loop.warning on the 11th and tool_loop.blocked on the 21st tool span', async () => {
    await runAgent('loop');
    const spans = (received as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>).flatMap((request) =>
      request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
    const tools = spans.filter((span) => span.name === 'ai.toolCall');
    expect(tools).toHaveLength(21);
    const withEvent = (name: string) => tools.flatMap((span, index) => (span.events?.some((event) => event.name === name) ? [index + 1] : []));
    expect(withEvent('tool_loop.warning')[0]).toBe(11);
    expect(withEvent('tool_loop.blocked')[0]).toBe(21);
  });
});
