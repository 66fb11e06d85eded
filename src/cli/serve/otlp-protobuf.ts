import protobuf from 'protobufjs';
import {
  anyValue,
  processOf,
  record,
  skippedSpanProblem,
  spanStatus,
  TOO_DEEP,
  tooDeepProblem,
} from '../readers/otlp.js';
import type { DecodeSink, DecodedSpan } from '../readers/types.js';
import type { SpanSource } from './span-intake.js';

/**
 * The OTLP trace messages `serve` reads and writes in the protobuf encoding, described here from
 * the field numbers of the OTLP specification (opentelemetry-proto `collector/trace/v1`,
 * `trace/v1`, `common/v1`, `resource/v1`) and google.rpc.Status. Only what detection reads:
 * the request down to span events' names and attributes (links, kinds, flags and the rest are
 * skipped as unknown fields), the response with its partial success, and the error status.
 */
export const OTLP_TRACE_MESSAGES: protobuf.INamespace = {
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

/**
 * The decoded messages, as protobufjs gives them: a field absent from the bytes is not an own
 * property (its default comes from the prototype), 64-bit numbers are `Long`s, bytes `Buffer`s.
 */
interface RequestMessage {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly KeyValueMessage[] } | null;
    readonly scopeSpans: readonly { readonly spans: readonly SpanMessage[] }[];
  }[];
}
interface SpanMessage {
  readonly traceId: Uint8Array;
  readonly spanId: Uint8Array;
  readonly parentSpanId: Uint8Array;
  readonly name: string;
  readonly startTimeUnixNano: protobuf.Long;
  readonly endTimeUnixNano: protobuf.Long;
  readonly attributes: readonly KeyValueMessage[];
  readonly events: readonly { readonly name: string; readonly attributes: readonly KeyValueMessage[] }[];
  readonly status: { readonly code: number; readonly message: string } | null;
}
interface KeyValueMessage {
  readonly key: string;
  readonly value: AnyValueMessage | null;
}
interface AnyValueMessage extends protobuf.Message {
  readonly stringValue: string;
  readonly boolValue: boolean;
  readonly intValue: protobuf.Long;
  readonly doubleValue: number;
}

/** How a message is turned into the OTLP JSON shape: ids and bytes in base64 (then hex), 64-bit numbers as decimal text. */
const JSON_SHAPE: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String };

/** The OTLP trace messages, encoded and decoded with protobufjs. */
export class OtlpProtobuf {
  private readonly request: protobuf.Type;
  private readonly response: protobuf.Type;
  private readonly status: protobuf.Type;
  private readonly anyValue: protobuf.Type;

  constructor() {
    const root = protobuf.Root.fromJSON(OTLP_TRACE_MESSAGES);
    this.request = root.lookupType('ExportTraceServiceRequest');
    this.response = root.lookupType('ExportTraceServiceResponse');
    this.status = root.lookupType('RpcStatus');
    this.anyValue = root.lookupType('AnyValue');
  }

  /**
   * Decodes an `ExportTraceServiceRequest` to the spans `serve` reads, straight from the messages:
   * the same spans, problems and rejections as {@link decodeTraceRequest} then the OTLP JSON
   * reader give. Spans with an id of the wrong length are counted as rejected here; the rest are
   * read (and those with an all-zero id skipped, as the reader skips them) as the intake takes
   * them. Throws (protobufjs' error: a truncated field, a bad wire type) when the bytes are not one.
   */
  readTraceRequest(bytes: Uint8Array): SpanSource {
    const message = this.request.decode(bytes) as unknown as RequestMessage;
    let count = 0;
    let rejected = 0;
    let problem: string | undefined;
    for (const { scopeSpans } of message.resourceSpans)
      for (const { spans } of scopeSpans)
        for (const span of spans) {
          const bad = idsProblem(span);
          if (bad === undefined) count += 1;
          else {
            rejected += 1;
            problem ??= `span ${JSON.stringify(span.name)}: ${bad}`;
          }
        }
    const read = (sink: DecodeSink) => this.readSpans(message, sink);
    return problem === undefined ? { count, rejected, read } : { count, rejected, problem, read };
  }

  /** Feeds the spans of a request whose ids have the right length to `sink`, as the OTLP JSON reader does. */
  private readSpans(message: RequestMessage, sink: DecodeSink): void {
    for (const resourceSpans of message.resourceSpans) {
      const resource = resourceSpans.resource
        ? this.keyValues(resourceSpans.resource.attributes, (key) => sink.problem(tooDeepProblem('resource', key)))
        : record();
      const { process, service } = processOf(resource);
      for (const { spans } of resourceSpans.scopeSpans)
        for (const span of spans) {
          if (idsProblem(span) !== undefined) continue;
          const { name } = span;
          const traceId = nonZeroHex(span.traceId);
          const spanId = nonZeroHex(span.spanId);
          if (traceId === undefined || spanId === undefined || !Object.hasOwn(span, 'startTimeUnixNano')) {
            sink.problem(skippedSpanProblem(name));
            continue;
          }
          const leftOut = (key: string) => sink.problem(tooDeepProblem(`span ${JSON.stringify(name)}`, key));
          const startUs = micros(span.startTimeUnixNano);
          const parentSpanId = nonZeroHex(span.parentSpanId);
          const decoded: DecodedSpan = {
            traceId,
            spanId,
            ...(parentSpanId !== undefined ? { parentSpanId } : {}),
            startUs,
            endUs: Object.hasOwn(span, 'endTimeUnixNano') ? micros(span.endTimeUnixNano) : startUs,
            process,
            ...(service !== undefined ? { service } : {}),
            resource,
            view: {
              name,
              attributes: this.keyValues(span.attributes, leftOut),
              status: span.status ? spanStatus(span.status.code, span.status.message) : undefined,
              events: span.events.map((event) => ({
                name: event.name,
                attributes: this.keyValues(event.attributes, leftOut),
              })),
            },
          };
          sink.span(decoded);
        }
    }
  }

  /** `[{key, value}]` → record, as the OTLP JSON reader's `keyValues` reads them. */
  private keyValues(list: readonly KeyValueMessage[], tooDeep: (key: string) => void): Record<string, unknown> {
    const out = record();
    for (const entry of list) {
      if (!Object.hasOwn(entry, 'key') || !entry.value) continue;
      const value = this.plainValue(entry.value);
      if (value === TOO_DEEP) tooDeep(entry.key);
      else if (value !== undefined) out[entry.key] = value;
    }
    return out;
  }

  /** An `AnyValue` as a plain value; arrays, kvlists and bytes (rare) through the OTLP JSON reader's `anyValue`. */
  private plainValue(value: AnyValueMessage): unknown {
    if (Object.hasOwn(value, 'stringValue')) return value.stringValue;
    if (Object.hasOwn(value, 'boolValue')) return value.boolValue;
    // The double nearest the 64-bit integer, as its decimal text reads.
    if (Object.hasOwn(value, 'intValue')) return value.intValue.high * 2 ** 32 + (value.intValue.low >>> 0);
    if (Object.hasOwn(value, 'doubleValue')) return value.doubleValue;
    return anyValue(this.anyValue.toObject(value, JSON_SHAPE));
  }

  /**
   * Decodes an `ExportTraceServiceRequest` to the OTLP JSON shape (as a file holds it). Throws
   * (protobufjs' error: a truncated field, a bad wire type) when the bytes are not one.
   */
  decodeTraceRequest(bytes: Uint8Array): DecodedRequest {
    const message = this.request.decode(bytes);
    const document = this.request.toObject(message, JSON_SHAPE) as {
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

/** Why a span's ids make it unusable (a length other than OTLP's), if they do. */
function idsProblem(span: SpanMessage): string | undefined {
  if (span.traceId.length !== TRACE_ID_BYTES) return `trace_id must be ${TRACE_ID_BYTES} bytes`;
  if (span.spanId.length !== SPAN_ID_BYTES) return `span_id must be ${SPAN_ID_BYTES} bytes`;
  const parent = span.parentSpanId.length;
  if (parent !== 0 && parent !== SPAN_ID_BYTES) return `parent_span_id must be empty or ${SPAN_ID_BYTES} bytes`;
  return undefined;
}

/** An id in hex; `undefined` when empty or all zero (no id), as the OTLP JSON reader reads it. */
function nonZeroHex(id: Uint8Array): string | undefined {
  return id.some((byte) => byte !== 0) ? Buffer.from(id.buffer, id.byteOffset, id.length).toString('hex') : undefined;
}

/** A fixed64 of nanoseconds in microseconds, as the OTLP JSON reader reads its decimal text. */
function micros({ low, high }: protobuf.Long): number {
  const nanos = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
  // From 16 digits on a double no longer holds every nanosecond: whole microseconds.
  return nanos < 10n ** 15n ? Number(nanos) / 1000 : Number(nanos / 1000n);
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
