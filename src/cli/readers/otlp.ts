import { STATUS_CODE_ERROR } from '../../spans/span-view.js';
import { ATTR_SERVICE_NAME } from '../../semconv.js';
import { normalizeId } from './ids.js';
import type { DecodeSink } from './types.js';
import { isRecord } from '../../util/is-record.js';

/**
 * OTLP JSON (`ExportTraceServiceRequest` / `TracesData`): `{resourceSpans: [{resource,
 * scopeSpans: [{spans: [...]}]}]}`, as written by the collector's file exporter (one object
 * per line) and the OTLP/HTTP JSON encoding; also Tempo's trace API shapes
 * (`{batches: [...]}`, `{trace: {resourceSpans | batches}}`) and the older
 * `instrumentationLibrarySpans`. Field names in lowerCamelCase or snake_case.
 */

type Json = Record<string, unknown>;

const field = (object: Json, camel: string, snake: string): unknown => object[camel] ?? object[snake];

/** The resource-spans list of an OTLP document, or `undefined` when it is not one. */
export function otlpResourceSpans(document: unknown): unknown[] | undefined {
  if (!isRecord(document)) return undefined;
  const direct = field(document, 'resourceSpans', 'resource_spans') ?? document.batches;
  if (Array.isArray(direct)) return direct as unknown[];
  if (isRecord(document.trace)) return otlpResourceSpans(document.trace);
  return undefined;
}

/** Converts an OTLP `AnyValue` to a plain value (`intValue` text → number; kvlist → object). */
export function anyValue(value: unknown): unknown {
  if (!isRecord(value)) return value;
  if ('stringValue' in value || 'string_value' in value) return field(value, 'stringValue', 'string_value');
  if ('boolValue' in value || 'bool_value' in value) return field(value, 'boolValue', 'bool_value');
  if ('intValue' in value || 'int_value' in value) {
    const raw = field(value, 'intValue', 'int_value');
    return typeof raw === 'string' ? Number(raw) : raw;
  }
  if ('doubleValue' in value || 'double_value' in value) {
    const raw = field(value, 'doubleValue', 'double_value');
    return typeof raw === 'string' ? Number(raw) : raw;
  }
  const array = field(value, 'arrayValue', 'array_value');
  if (isRecord(array)) return Array.isArray(array.values) ? array.values.map(anyValue) : [];
  const kvlist = field(value, 'kvlistValue', 'kvlist_value');
  if (isRecord(kvlist)) return keyValues(kvlist.values);
  if ('bytesValue' in value || 'bytes_value' in value) return field(value, 'bytesValue', 'bytes_value');
  return undefined;
}

/** `[{key, value: AnyValue}]` → record. */
export function keyValues(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry.key !== 'string') continue;
    const value = anyValue(entry.value);
    if (value !== undefined) out[entry.key] = value;
  }
  return out;
}

/** Nanoseconds (string or number) → microseconds. */
function nanosToMicros(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value / 1000;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    return value.length > 15 ? Number(BigInt(value) / 1000n) : Number(value) / 1000;
  }
  return undefined;
}

function statusOf(status: unknown): { code: number; message?: string } | undefined {
  if (!isRecord(status)) return undefined;
  const raw = status.code;
  let code = 0;
  if (typeof raw === 'number') code = raw;
  else if (raw === 'STATUS_CODE_ERROR' || raw === 'ERROR') code = STATUS_CODE_ERROR;
  else if (raw === 'STATUS_CODE_OK' || raw === 'OK') code = 1;
  const message = typeof status.message === 'string' && status.message !== '' ? status.message : undefined;
  return message === undefined ? { code } : { code, message };
}

/** A stable identity for a resource: its attributes in key order. */
function processKey(attributes: Record<string, unknown>): string {
  const keys = Object.keys(attributes).sort();
  return keys.length === 0 ? '(no resource)' : JSON.stringify(keys.map((key) => [key, attributes[key]]));
}

/** Decodes one OTLP document; returns false when the value is not OTLP. */
export function decodeOtlp(document: unknown, sink: DecodeSink, line?: number): boolean {
  const resourceSpans = otlpResourceSpans(document);
  if (!resourceSpans) return false;
  for (const resourceSpan of resourceSpans) {
    if (!isRecord(resourceSpan)) continue;
    const resource = isRecord(resourceSpan.resource) ? keyValues(resourceSpan.resource.attributes) : {};
    const process = processKey(resource);
    const service = typeof resource[ATTR_SERVICE_NAME] === 'string' ? resource[ATTR_SERVICE_NAME] : undefined;
    const scopes =
      field(resourceSpan, 'scopeSpans', 'scope_spans') ??
      field(resourceSpan, 'instrumentationLibrarySpans', 'instrumentation_library_spans');
    if (!Array.isArray(scopes)) continue;
    for (const scope of scopes) {
      if (!isRecord(scope) || !Array.isArray(scope.spans)) continue;
      for (const span of scope.spans) {
        if (!isRecord(span)) continue;
        const traceId = normalizeId(field(span, 'traceId', 'trace_id'), 16);
        const spanId = normalizeId(field(span, 'spanId', 'span_id'), 8);
        const startUs = nanosToMicros(field(span, 'startTimeUnixNano', 'start_time_unix_nano'));
        if (!traceId || !spanId || startUs === undefined) {
          sink.problem(
            `span ${JSON.stringify(span.name ?? '?')} skipped: missing traceId, spanId or startTimeUnixNano`,
            line,
          );
          continue;
        }
        const endUs = nanosToMicros(field(span, 'endTimeUnixNano', 'end_time_unix_nano')) ?? startUs;
        const parentSpanId = normalizeId(field(span, 'parentSpanId', 'parent_span_id'), 8);
        const events = Array.isArray(span.events)
          ? span.events.filter(isRecord).map((event) => ({
              name: typeof event.name === 'string' ? event.name : '',
              attributes: keyValues(event.attributes),
            }))
          : [];
        sink.span({
          traceId,
          spanId,
          ...(parentSpanId !== undefined ? { parentSpanId } : {}),
          startUs,
          endUs,
          process,
          ...(service !== undefined ? { service } : {}),
          view: {
            name: typeof span.name === 'string' ? span.name : '',
            attributes: keyValues(span.attributes),
            status: statusOf(span.status),
            events,
          },
        });
      }
    }
  }
  return true;
}
