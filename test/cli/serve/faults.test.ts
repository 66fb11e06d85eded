/**
 * `serve` under bad input and faults, on 127.0.0.1: malformed, truncated and oversized requests
 * get the protocol's error with a clear message and leave other requests alone; a full buffer
 * answers the retryable status, and the real OTLP exporter's retry gets its spans in; spans that
 * arrive out of order and split across requests are judged in start order once the grace period
 * passes; stopping judges what is buffered, says how many runs it held, and flushes the exporters.
 */
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import protobuf from 'protobufjs';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { TRACE_EXPORT_PATH } from '../../../src/cli/serve/grpc-receiver.js';
import * as sc from '../../../src/semconv.js';
import { agent, evidenceSpans, eventually, metricPoints, serve, type Served } from './helpers.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A looping run recorded in memory: four identical reads under an agent span, and the agent span. */
function recordedLoop(): { calls: ReadableSpan[]; root: ReadableSpan } {
  const memory = new InMemorySpanExporter();
  const app = agent(memory);
  const root = app.start('invoke_agent', { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' });
  for (let n = 0; n < 4; n += 1) app.call(root, 'read', { path: '/a' }, 'same');
  app.end(root);
  const spans = memory.getFinishedSpans();
  return { calls: spans.slice(0, 4), root: spans[4] };
}

const protobufOf = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
const json = (spans: ReadableSpan[]) => Buffer.from(JsonTraceSerializer.serializeRequest(spans)!);

/** One raw OTLP/gRPC export call. */
function grpcExport(
  address: string,
  body: Buffer,
  options: grpc.ChannelOptions = {},
): Promise<{ code: number; details: string }> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), options);
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      TRACE_EXPORT_PATH,
      (bytes: Buffer) => bytes,
      (bytes: Buffer) => bytes,
      body,
      (error) => {
        client.close();
        resolve(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: '' });
      },
    ),
  );
}

/** One raw OTLP/HTTP POST; the error body decoded (google.rpc.Status in the request's encoding). */
async function httpExport(
  address: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; message?: string; code?: number; retryAfter?: string | null }> {
  const response = await fetch(`http://${address}/v1/traces`, { method: 'POST', body, headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 200) return { status: 200 };
  if ((headers['content-type'] ?? '').startsWith('application/json')) {
    const status = JSON.parse(bytes.toString('utf8')) as { code: number; message: string };
    return { status: response.status, code: status.code, message: status.message, retryAfter };
  }
  const decoded = decodeStatus(bytes);
  return { status: response.status, ...decoded, retryAfter };
}

/** The error body of a protobuf request: a google.rpc.Status. */
const STATUS = protobuf.Type.fromJSON('Status', {
  fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } },
});

function decodeStatus(bytes: Buffer): { code: number; message: string } {
  return STATUS.toObject(STATUS.decode(bytes)) as { code: number; message: string };
}

const PROTOBUF = { 'content-type': 'application/x-protobuf' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('bad requests get the protocol error and leave other requests alone', () => {
  it('OTLP/gRPC: malformed and truncated → INVALID_ARGUMENT; oversized, sent or once decompressed → RESOURCE_EXHAUSTED', async () => {
    served = await serve({ maxRequestBytes: 64 * 1024 });
    const address = served.service.grpcAddress!;
    const { calls, root } = recordedLoop();
    const valid = protobufOf([...calls, root]);
    const truncated = await grpcExport(address, valid.subarray(0, valid.length - 9));
    expect(truncated.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(truncated.details).toMatch(/^malformed ExportTraceServiceRequest: /);
    const garbage = await grpcExport(address, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(garbage).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    const large = await grpcExport(address, Buffer.alloc(100 * 1024, 0x41));
    expect(large.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // 100 KiB of zeros compresses to a few hundred bytes: refused once decompressed.
    const bomb = await grpcExport(address, Buffer.alloc(100 * 1024), { 'grpc.default_compression_algorithm': 2 });
    expect(bomb.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(bomb.details).toMatch(/decompresses to a size larger than 65536/);
    // The good request after the bad ones: taken, and the loop found.
    expect(await grpcExport(address, valid)).toEqual({ code: grpc.status.OK, details: '' });
    await eventually(() => (evidenceSpans(served!.sink).length === 2 ? true : undefined));
  });

  it('OTLP/HTTP: malformed, truncated, not OTLP → 400; oversized → 413; unsupported type or encoding → 415', async () => {
    served = await serve({ maxRequestBytes: 64 * 1024 });
    const address = served.service.httpAddress!;
    const { calls, root } = recordedLoop();
    const valid = protobufOf([...calls, root]);
    expect(await httpExport(address, valid.subarray(0, valid.length - 9), PROTOBUF)).toMatchObject({
      status: 400,
      code: 3,
      message: expect.stringMatching(/^malformed ExportTraceServiceRequest: /) as string,
    });
    expect(await httpExport(address, Buffer.from('{"resourceSpans": ['), JSON_TYPE)).toMatchObject({
      status: 400,
      code: 3,
      message: expect.stringMatching(/^malformed JSON: /) as string,
    });
    expect(await httpExport(address, Buffer.from('{"spans": []}'), JSON_TYPE)).toMatchObject({
      status: 400,
      message: 'the body has no resourceSpans (keys: spans)',
    });
    expect(await httpExport(address, Buffer.from('[1]'), JSON_TYPE)).toMatchObject({ status: 400 });
    expect(await httpExport(address, Buffer.alloc(100 * 1024), PROTOBUF)).toMatchObject({
      status: 413,
      code: 8,
      message: 'the request is larger than 65536 bytes (--max-request-bytes)',
    });
    const bomb = gzipSync(Buffer.alloc(100 * 1024));
    expect(bomb.length).toBeLessThan(1024);
    expect(await httpExport(address, bomb, { ...PROTOBUF, 'content-encoding': 'gzip' })).toMatchObject({ status: 413 });
    expect(await httpExport(address, valid, { ...PROTOBUF, 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^malformed gzip body: /) as string,
    });
    expect(await httpExport(address, valid, { 'content-type': 'text/plain' })).toMatchObject({ status: 415 });
    expect(await httpExport(address, valid, { ...PROTOBUF, 'content-encoding': 'br' })).toMatchObject({ status: 415 });
    expect((await fetch(`http://${address}/v1/logs`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`http://${address}/v1/traces`)).status).toBe(405);
    // The good requests after the bad ones: taken (gzip too), and the loop found.
    expect(
      await httpExport(address, gzipSync(json([...calls, root])), { ...JSON_TYPE, 'content-encoding': 'gzip' }),
    ).toEqual({
      status: 200,
    });
    await eventually(() => (evidenceSpans(served!.sink).length === 2 ? true : undefined));
  });

  it('counts spans it cannot use in the partial success, and takes the rest', async () => {
    served = await serve();
    const { calls, root } = recordedLoop();
    const document = JSON.parse(json([...calls, root]).toString('utf8')) as {
      resourceSpans: { scopeSpans: { spans: { spanId: string }[] }[] }[];
    };
    document.resourceSpans[0].scopeSpans[0].spans[0].spanId = '';
    const response = await fetch(`http://${served.service.httpAddress}/v1/traces`, {
      method: 'POST',
      body: JSON.stringify(document),
      headers: JSON_TYPE,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: 'span "execute_tool read" skipped: missing traceId, spanId or startTimeUnixNano',
      },
    });
  });
});

describe('a full buffer', () => {
  it('answers gRPC UNAVAILABLE and HTTP 503 with Retry-After, which the collector retries', async () => {
    served = await serve({ maxBufferedSpans: 5, graceMs: 60_000, maxWaitMs: 60_000 });
    const { calls, root } = recordedLoop();
    expect(await grpcExport(served.service.grpcAddress!, protobufOf([...calls, root]))).toMatchObject({ code: 0 });
    expect(await grpcExport(served.service.grpcAddress!, protobufOf(calls))).toEqual({
      code: grpc.status.UNAVAILABLE,
      details: '5 spans are waiting to be judged (--max-buffered-spans 5): retry later',
    });
    expect(await httpExport(served.service.httpAddress!, protobufOf(calls), PROTOBUF)).toMatchObject({
      status: 503,
      code: 14,
      retryAfter: '60',
    });
    expect(served.lines.join('')).toContain('warn refusing requests (retryable): 5 spans are waiting');
  });

  it("gets the real exporter's spans in on its retry, once judging made room", async () => {
    served = await serve({ maxBufferedSpans: 5, graceMs: 300 });
    const first = recordedLoop();
    expect(await httpExport(served.service.httpAddress!, json([...first.calls, first.root]), JSON_TYPE)).toEqual({
      status: 200,
    });
    const app = agent(new JsonExporter({ url: `http://${served.service.httpAddress}/v1/traces` }));
    const root = app.start('invoke_agent', { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' });
    const calls = [1, 2, 3, 4].map(() => app.call(root, 'read', { path: '/a' }, 'same'));
    app.end(root);
    const sink = served.sink;
    // Both runs' blocks: the second run's spans were refused first, then taken on the retry.
    const blocks = await eventually(() => {
      const found = evidenceSpans(sink).filter((span) => span.events?.[0]?.name === sc.EVENT_TOOL_LOOP_BLOCKED);
      return found.length === 2 ? found : undefined;
    }, 15_000);
    expect(blocks.map((span) => span.parentSpanId)).toContain(calls[3].spanContext().spanId);
    await app.shutdown();
    await served.service.flush();
    expect(metricPoints(sink, sc.METRIC_TOOL_LOOP_SERVE_REFUSED_REQUESTS)[0]?.value).toBeGreaterThan(0);
  }, 20_000);
});

describe('run assembly', () => {
  it('judges spans split across requests and out of order in start order, once the grace period passes', async () => {
    served = await serve({ graceMs: 300 });
    const { calls, root } = recordedLoop();
    const address = served.service.httpAddress!;
    // The later calls and the agent span first; the first calls after.
    expect(await httpExport(address, json([calls[3], root, calls[2]]), JSON_TYPE)).toEqual({ status: 200 });
    expect(await httpExport(address, json([calls[1], calls[0]]), JSON_TYPE)).toEqual({ status: 200 });
    expect(evidenceSpans(served.sink)).toEqual([]);
    const sink = served.sink;
    const evidence = await eventually(() => {
      const found = evidenceSpans(sink);
      return found.length === 2 ? found : undefined;
    });
    expect(
      evidence
        .map((span) => `${span.events?.[0]?.name}@${span.parentSpanId}`)
        .sort()
        .join(' '),
    ).toBe(
      [
        `${sc.EVENT_TOOL_LOOP_BLOCKED}@${calls[3].spanContext().spanId}`,
        `${sc.EVENT_TOOL_LOOP_WARNING}@${calls[2].spanContext().spanId}`,
      ].join(' '),
    );
  });
});

describe('stopping', () => {
  it('judges what is buffered, says how many runs it held, and flushes the evidence and counters', async () => {
    served = await serve({ graceMs: 60_000, maxWaitMs: 60_000 });
    const { calls } = recordedLoop();
    // The calls without their agent span: the run is still live when the service stops.
    expect(await grpcExport(served.service.grpcAddress!, protobufOf(calls))).toMatchObject({ code: 0 });
    expect(served.service.bufferedSpans).toBe(4);
    const report = await served.service.stop();
    expect(report).toEqual({ bufferedSpans: 4, bufferedTraces: 1, liveRuns: 1 });
    expect(served.lines.join('')).toContain(
      'stopping: judged the 4 buffered spans of 1 traces at once; 1 in-memory runs lost (their loop history',
    );
    expect(
      evidenceSpans(served.sink)
        .map((span) => span.events?.[0]?.name)
        .sort(),
    ).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED, sc.EVENT_TOOL_LOOP_WARNING]);
    expect(metricPoints(served.sink, sc.METRIC_TOOL_LOOP_EVENTS)).toHaveLength(2);
    expect(metricPoints(served.sink, sc.METRIC_TOOL_LOOP_SERVE_RELEASED_RUNS)).toEqual([
      expect.objectContaining({ attributes: { [sc.ATTR_TOOL_LOOP_SERVE_REASON]: 'shutdown' }, value: 1 }),
    ]);
  });
});
