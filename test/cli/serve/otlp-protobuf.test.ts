/**
 * The protobuf messages `serve` reads, checked against what the OTel SDK's own OTLP serializers
 * write: a request decodes to the same spans as its OTLP JSON encoding, bad ids are left out
 * and counted, broken bytes throw.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeOtlp } from '../../../src/cli/readers/otlp.js';
import type { DecodedSpan } from '../../../src/cli/readers/types.js';
import { OtlpProtobuf } from '../../../src/cli/serve/otlp-protobuf.js';

function recordedSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent', 'service.instance.id': 'i-1' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('test');
  const root = tracer.startSpan('invoke_agent');
  const tool = tracer.startSpan(
    'execute_tool read',
    {
      attributes: {
        'gen_ai.tool.name': 'read',
        'gen_ai.tool.call.arguments': '{"path":"/a"}',
        count: 3,
        big: 2 ** 40,
        ratio: 0.5,
        ok: false,
        list: ['a', 'b'],
      },
    },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  tool.addEvent('exception', { 'exception.message': 'boom' });
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
  tool.end();
  root.end();
  return exporter.getFinishedSpans();
}

function decoded(document: unknown): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  const problems: string[] = [];
  expect(decodeOtlp(document, { span: (span) => spans.push(span), problem: (message) => problems.push(message) })).toBe(
    true,
  );
  expect(problems).toEqual([]);
  return spans;
}

describe('OtlpProtobuf', () => {
  const codec = new OtlpProtobuf();

  it("decodes the SDK's protobuf export to the spans its OTLP JSON export holds", () => {
    const spans = recordedSpans();
    const bytes = ProtobufTraceSerializer.serializeRequest(spans)!;
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown;
    const fromProtobuf = codec.decodeTraceRequest(bytes);
    expect(fromProtobuf.rejected).toBe(0);
    const viaProtobuf = decoded(fromProtobuf.document);
    expect(viaProtobuf).toEqual(decoded(json));
    const tool = viaProtobuf.find((span) => span.view.name === 'execute_tool read')!;
    expect(tool.parentSpanId).toBe(spans[1].spanContext().spanId);
    expect(tool.view.attributes).toMatchObject({ count: 3, big: 2 ** 40, ratio: 0.5, ok: false, list: ['a', 'b'] });
    expect(tool.view.status).toEqual({ code: 2, message: 'failed' });
    expect(tool.view.events).toEqual([{ name: 'exception', attributes: { 'exception.message': 'boom' } }]);
    expect(tool.service).toBe('agent');
  });

  it('leaves out and counts spans whose ids have the wrong length', () => {
    const root = codec.decodeTraceRequest(ProtobufTraceSerializer.serializeRequest(recordedSpans())!).document as {
      resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[];
    };
    expect(root.resourceSpans[0].scopeSpans[0].spans).toHaveLength(2);
    // Re-encode one span with a 3-byte trace id through the SDK's own types: a tampered copy.
    const spans = recordedSpans();
    const bad: (typeof spans)[0] = Object.assign(
      Object.create(Object.getPrototypeOf(spans[0]) as object) as object,
      spans[0],
      {
        spanContext: () => ({ ...spans[0].spanContext(), traceId: 'abcdef' }),
      },
    );
    const result = codec.decodeTraceRequest(ProtobufTraceSerializer.serializeRequest([bad, spans[1]])!);
    expect(result.rejected).toBe(1);
    expect(result.problem).toBe('span "execute_tool read": trace_id must be 16 bytes');
    expect(decoded(result.document)).toHaveLength(1);
  });

  it('throws on bytes that are no request, and on a request cut short', () => {
    const bytes = ProtobufTraceSerializer.serializeRequest(recordedSpans())!;
    expect(() => codec.decodeTraceRequest(bytes.subarray(0, bytes.length - 7))).toThrow(/index out of range/);
    expect(() => codec.decodeTraceRequest(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow();
    expect(() => codec.decodeTraceRequest(new TextEncoder().encode('{"resourceSpans":[]}'))).toThrow();
  });

  it('encodes a response with its partial success, and an error status', () => {
    expect(codec.encodeTraceResponse()).toHaveLength(0);
    // partial_success (1) { rejected_spans (1) = 2, error_message (2) = "bad ids" }
    expect(Buffer.from(codec.encodeTraceResponse(2, 'bad ids')).toString('hex')).toBe('0a0b0802120762616420696473');
    expect(Buffer.from(codec.encodeStatus(3, 'no')).toString('hex')).toBe('080312026e6f');
  });
});
