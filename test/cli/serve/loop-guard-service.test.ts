/**
 * `serve` end to end on 127.0.0.1: an agent made of the real OpenTelemetry SDK exports its spans
 * through the real OTLP exporters (gRPC; HTTP protobuf; HTTP JSON; gzip) to the service, which
 * judges each trace after the grace period and exports evidence spans (children of the looping
 * tool span, in the agent's trace and service) and the tool_loop.events counter to an OTLP stub.
 */
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import * as sc from '../../../src/semconv.js';
import { otlpAttributes } from '../../helpers/otlp-receiver.js';
import { agent, evidenceSpans, eventually, metricPoints, serve, type Served } from './helpers.js';

let served: Served | undefined;
const agents: Array<{ shutdown(): Promise<void> }> = [];
afterEach(async () => {
  for (const one of agents.splice(0)) await one.shutdown();
  await served?.close();
  served = undefined;
});

/** A run of four identical reads under one agent span: a warning on the 3rd call, a block on the 4th. */
function loopingRun(exporter: SpanExporter) {
  const app = agent(exporter);
  agents.push(app);
  const root = app.start('invoke_agent', { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' });
  const calls = [1, 2, 3, 4].map(() => app.call(root, 'read', { path: '/a' }, 'same'));
  app.end(root);
  return { root, calls };
}

describe.each([
  ['OTLP/gRPC', (s: Served) => new GrpcExporter({ url: `http://${s.service.grpcAddress}` })],
  [
    'OTLP/gRPC gzip',
    (s: Served) => new GrpcExporter({ url: `http://${s.service.grpcAddress}`, compression: 'gzip' as never }),
  ],
  ['OTLP/HTTP protobuf', (s: Served) => new ProtoExporter({ url: `http://${s.service.httpAddress}/v1/traces` })],
  ['OTLP/HTTP JSON', (s: Served) => new JsonExporter({ url: `http://${s.service.httpAddress}/v1/traces` })],
  [
    'OTLP/HTTP protobuf gzip',
    (s: Served) =>
      new ProtoExporter({ url: `http://${s.service.httpAddress}/v1/traces`, compression: 'gzip' as never }),
  ],
  [
    'OTLP/HTTP JSON gzip',
    (s: Served) => new JsonExporter({ url: `http://${s.service.httpAddress}/v1/traces`, compression: 'gzip' as never }),
  ],
])('a looping agent exporting over %s', (_protocol, exporterFor) => {
  it('gets an evidence span per warning and block inside its own trace, children of the tool spans', async () => {
    served = await serve();
    const { root, calls } = loopingRun(exporterFor(served));
    const sink = served.sink;
    const evidence = await eventually(() => {
      const found = evidenceSpans(sink);
      return found.length >= 2 ? found : undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the service logged:\n${served!.lines.join('')}`);
    });
    const traceId = root.spanContext().traceId;
    const [warning, block] = [...evidence].sort((a, b) => Number(a.startTimeUnixNano) - Number(b.startTimeUnixNano));
    expect(warning).toMatchObject({ traceId, parentSpanId: calls[2].spanContext().spanId });
    expect(block).toMatchObject({ traceId, parentSpanId: calls[3].spanContext().spanId });
    // In the agent's own process and service, at the moment the call was judged (its start).
    expect(block.resource).toMatchObject({ 'service.name': 'py-agent', 'service.instance.id': 'agent-1' });
    const [seconds, nanos] = (calls[3] as unknown as ReadableSpan).startTime;
    expect(String(block.startTimeUnixNano)).toBe(String(BigInt(seconds) * 1_000_000_000n + BigInt(nanos)));
    const attributes = otlpAttributes(block.attributes);
    expect(attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_ACTION]: 'block',
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
      [sc.ATTR_TOOL_LOOP_ENFORCED]: false,
      // The agent span opens an id-less run (the processor's scoping).
      [sc.ATTR_TOOL_LOOP_RUN_ID]: `${traceId}/${root.spanContext().spanId}`,
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'block',
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'deny',
    });
    expect(block.status?.code).toBe(2);
    // Linked to the loop's other member calls.
    expect(block.links?.map((link) => link.spanId).sort()).toEqual(
      calls
        .slice(0, 3)
        .map((call) => call.spanContext().spanId)
        .sort(),
    );
    // The event the processor would have put on the tool span: what the count connector counts.
    expect(block.events?.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    expect(otlpAttributes(block.events?.[0].attributes)).toMatchObject({
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
    });
    expect(otlpAttributes(warning.attributes)).toMatchObject({
      [sc.ATTR_TOOL_LOOP_ACTION]: 'warn',
      [sc.ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE]: 'warn',
      [sc.ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE]: 'allow',
    });
    expect(warning.events?.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
  });
});

describe('the tool_loop.events counter', () => {
  it("counts under the agent's service with the processor's labels and this replica's instance id", async () => {
    served = await serve();
    loopingRun(new GrpcExporter({ url: `http://${served.service.grpcAddress}` }));
    const sink = served.sink;
    await eventually(() => (evidenceSpans(sink).length >= 2 ? true : undefined));
    await served.service.flush();
    const points = metricPoints(sink, sc.METRIC_TOOL_LOOP_EVENTS);
    expect(
      points
        .map((point) => point.attributes)
        .sort((a, b) => String(a[sc.ATTR_TOOL_LOOP_ACTION]).localeCompare(String(b[sc.ATTR_TOOL_LOOP_ACTION]))),
    ).toEqual([
      {
        [sc.ATTR_TOOL_LOOP_ACTION]: 'block',
        [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
        [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      },
      {
        [sc.ATTR_TOOL_LOOP_ACTION]: 'warn',
        [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
        [sc.ATTR_TOOL_LOOP_LEVEL]: 'warning',
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      },
    ]);
    expect(points.map((point) => point.value)).toEqual([1, 1]);
    expect(points[0].resource).toMatchObject({
      'service.name': 'py-agent',
      'service.instance.id': served.service.instanceId,
    });
    // The service's own metrics, under its own resource.
    const accepted = metricPoints(sink, sc.METRIC_TOOL_LOOP_SERVE_SPANS);
    expect(accepted).toEqual([
      expect.objectContaining({
        attributes: { [sc.ATTR_TOOL_LOOP_SERVE_OUTCOME]: 'accepted' },
        value: 5,
        resource: expect.objectContaining({ 'service.name': 'tool-loop-guard' }) as unknown,
      }),
    ]);
  });

  it('in shadow mode reports would_* actions, which no alert rule reads', async () => {
    served = await serve({}, { mode: 'shadow' });
    loopingRun(new GrpcExporter({ url: `http://${served.service.grpcAddress}` }));
    const sink = served.sink;
    const evidence = await eventually(() => {
      const found = evidenceSpans(sink);
      return found.length >= 2 ? found : undefined;
    });
    expect(evidence.flatMap((span) => span.events?.map((event) => event.name))).toEqual(
      expect.arrayContaining([sc.EVENT_TOOL_LOOP_WOULD_WARN, sc.EVENT_TOOL_LOOP_WOULD_BLOCK]),
    );
    await served.service.flush();
    expect(
      metricPoints(sink, sc.METRIC_TOOL_LOOP_EVENTS)
        .map((p) => p.attributes[sc.ATTR_TOOL_LOOP_ACTION])
        .sort(),
    ).toEqual(['would_block', 'would_warn']);
  });
});
