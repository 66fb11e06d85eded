import protobuf from 'protobufjs';

/**
 * The OTLP trace messages `serve` reads and writes in the protobuf encoding, described here from
 * the field numbers of the OTLP specification (opentelemetry-proto `collector/trace/v1`,
 * `trace/v1`, `common/v1`, `resource/v1`) and google.rpc.Status. Only what detection reads:
 * the request down to span events' names and attributes (links, kinds, flags and the rest are
 * skipped as unknown fields), the response with its partial success, and the error status.
 */
const DESCRIPTOR: protobuf.INamespace = {
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
    ExportTracePartialSuccess: {
      fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: {
      fields: {
        name: { type: 'string', id: 2 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: {
        value: {
          oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
        },
      },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    RpcStatus: {
      fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } },
    },
  },
};

/** Bytes of a trace id and a span id. */
const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;

/** What {@link decodeTraceRequest} makes of a protobuf request. */
export interface DecodedRequest {
  /** The request in the OTLP JSON shape (ids in hex, 64-bit numbers as decimal text), its bad spans left out. */
  readonly document: unknown;
  /** Spans left out: an id of the wrong length. */
  readonly rejected: number;
  /** Why the first of them was left out. */
  readonly problem?: string;
}

/** The OTLP trace messages, encoded and decoded with protobufjs. */
export class OtlpProtobuf {
  private readonly request: protobuf.Type;
  private readonly response: protobuf.Type;
  private readonly status: protobuf.Type;

  constructor() {
    const root = protobuf.Root.fromJSON(DESCRIPTOR);
    this.request = root.lookupType('ExportTraceServiceRequest');
    this.response = root.lookupType('ExportTraceServiceResponse');
    this.status = root.lookupType('RpcStatus');
  }

  /**
   * Decodes an `ExportTraceServiceRequest`. Throws (protobufjs' error: a truncated field, a bad
   * wire type) when the bytes are not one.
   */
  decodeTraceRequest(bytes: Uint8Array): DecodedRequest {
    const message = this.request.decode(bytes);
    const document = this.request.toObject(message, { longs: String, enums: Number, bytes: String }) as {
      resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
    };
    let rejected = 0;
    let problem: string | undefined;
    for (const resourceSpans of document.resourceSpans ?? [])
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        const { spans } = scopeSpans;
        if (!spans) continue;
        const kept = spans.filter((span) => {
          const bad = idProblem(span);
          if (bad === undefined) return true;
          rejected += 1;
          problem ??= `span ${JSON.stringify(typeof span.name === 'string' ? span.name : '')}: ${bad}`;
          return false;
        });
        scopeSpans.spans = kept;
      }
    return problem === undefined ? { document, rejected } : { document, rejected, problem };
  }

  /** An `ExportTraceServiceResponse`, with a partial success when spans were rejected. */
  encodeTraceResponse(rejected = 0, errorMessage = ''): Uint8Array {
    const body =
      rejected > 0 || errorMessage !== '' ? { partialSuccess: { rejectedSpans: rejected, errorMessage } } : {};
    return this.response.encode(this.response.fromObject(body)).finish();
  }

  /** A `google.rpc.Status` (an OTLP/HTTP error body). */
  encodeStatus(code: number, message: string): Uint8Array {
    return this.status.encode(this.status.fromObject({ code, message })).finish();
  }
}

/** Replaces a span's ids by hex; returns why the span is unusable, if it is. */
function idProblem(span: Record<string, unknown>): string | undefined {
  const traceId = hexOf(span.traceId, TRACE_ID_BYTES);
  const spanId = hexOf(span.spanId, SPAN_ID_BYTES);
  const parent = span.parentSpanId;
  const parentSpanId = parent === undefined || parent === '' ? '' : hexOf(parent, SPAN_ID_BYTES);
  if (traceId === undefined) return `trace_id must be ${TRACE_ID_BYTES} bytes`;
  if (spanId === undefined) return `span_id must be ${SPAN_ID_BYTES} bytes`;
  if (parentSpanId === undefined) return `parent_span_id must be empty or ${SPAN_ID_BYTES} bytes`;
  span.traceId = traceId;
  span.spanId = spanId;
  if (parentSpanId === '') delete span.parentSpanId;
  else span.parentSpanId = parentSpanId;
  return undefined;
}

/** An id decoded from the base64 protobufjs gives bytes as, in hex; `undefined` unless it has `length` bytes. */
function hexOf(base64: unknown, length: number): string | undefined {
  if (typeof base64 !== 'string') return undefined;
  const bytes = Buffer.from(base64, 'base64');
  return bytes.length === length ? bytes.toString('hex') : undefined;
}
