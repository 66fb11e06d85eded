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

/**
 * Deepest nesting of an attribute value (arrays and kvlists) decoded: far beyond what any
 * instrumentation writes. A deeper value is left out, with a problem naming its span and key,
 * so that no later step (hashing, printing) meets a structure deeper than this.
 */
export const MAX_VALUE_DEPTH = 100;

/** Most `{trace: …}` wrappers around a document unwrapped (Tempo wraps once). */
const MAX_TRACE_WRAPPERS = 8;

/** The resource-spans list of an OTLP document, or `undefined` when it is not one. */
export function otlpResourceSpans(document: unknown): unknown[] | undefined {
  let current = document;
  for (let wrappers = 0; wrappers <= MAX_TRACE_WRAPPERS && isRecord(current); wrappers += 1) {
    const direct = field(current, 'resourceSpans', 'resource_spans') ?? current.batches;
    if (Array.isArray(direct)) return direct as unknown[];
    current = current.trace;
  }
  return undefined;
}

/** What {@link anyValue} gives for a value nested deeper than {@link MAX_VALUE_DEPTH}. */
export const TOO_DEEP: unique symbol = Symbol('nested too deeply');

/** A record for keys read from a file: without a prototype, so a key `__proto__` is a key like any other. */
export function record(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** A container being filled while decoding: an array's items or a kvlist's entries, one by one. */
interface Frame {
  readonly out: unknown[] | Record<string, unknown>;
  readonly items: unknown[];
  /** The kvlist entries' keys (`undefined` for an array). */
  readonly keys: string[] | undefined;
  next: number;
}

/**
 * Converts an OTLP `AnyValue` to a plain value (`intValue` text → number; kvlist → object),
 * without recursion: a value nested deeper than {@link MAX_VALUE_DEPTH} gives {@link TOO_DEEP}.
 */
export function anyValue(value: unknown): unknown {
  const root = containerOf(value);
  if (root === undefined) return scalarValue(value);
  const stack: Frame[] = [root];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top.next === top.items.length) {
      stack.pop();
      if (stack.length === 0) return top.out;
      place(stack[stack.length - 1], top.out);
      continue;
    }
    const item = top.items[top.next];
    const inner = containerOf(item);
    if (inner === undefined) place(top, scalarValue(item));
    else if (stack.length >= MAX_VALUE_DEPTH) return TOO_DEEP;
    else stack.push(inner);
  }
}

/** The item just decoded goes into its container (kvlist entries without a value are left out). */
function place(frame: Frame, item: unknown): void {
  const at = frame.next;
  frame.next += 1;
  if (frame.keys === undefined) (frame.out as unknown[]).push(item);
  else if (item !== undefined) (frame.out as Record<string, unknown>)[frame.keys[at]] = item;
}

/** An `arrayValue` or `kvlistValue` as a frame to fill, else `undefined`. */
function containerOf(value: unknown): Frame | undefined {
  if (!isRecord(value) || isScalar(value)) return undefined;
  const array = field(value, 'arrayValue', 'array_value');
  if (isRecord(array))
    return { out: [], items: Array.isArray(array.values) ? array.values : [], keys: undefined, next: 0 };
  const kvlist = field(value, 'kvlistValue', 'kvlist_value');
  if (!isRecord(kvlist)) return undefined;
  const entries = Array.isArray(kvlist.values)
    ? kvlist.values.filter((entry): entry is Json => isRecord(entry) && typeof entry.key === 'string')
    : [];
  return {
    out: record(),
    items: entries.map((entry) => entry.value),
    keys: entries.map((entry) => entry.key as string),
    next: 0,
  };
}

const SCALAR_FIELDS = [
  'stringValue',
  'string_value',
  'boolValue',
  'bool_value',
  'intValue',
  'int_value',
  'doubleValue',
  'double_value',
];

function isScalar(value: Json): boolean {
  return SCALAR_FIELDS.some((key) => key in value);
}

/** A scalar `AnyValue` (or anything that is no container) as a plain value. */
function scalarValue(value: unknown): unknown {
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
  if ('bytesValue' in value || 'bytes_value' in value) return field(value, 'bytesValue', 'bytes_value');
  return undefined;
}

/** `[{key, value: AnyValue}]` → record; a value nested too deeply is left out and its key passed to `tooDeep`. */
export function keyValues(list: unknown, tooDeep?: (key: string) => void): Record<string, unknown> {
  const out = record();
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry.key !== 'string') continue;
    const value = anyValue(entry.value);
    if (value === TOO_DEEP) tooDeep?.(entry.key);
    else if (value !== undefined) out[entry.key] = value;
  }
  return out;
}

/** Nanoseconds (string or number) → microseconds. */
function nanosToMicros(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value / 1000;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    // From 16 digits on a double no longer holds every nanosecond: whole microseconds.
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
  return spanStatus(code, typeof status.message === 'string' ? status.message : undefined);
}

/** The process that emitted spans of a resource: a stable identity (its attributes in key order), and its service. */
export function processOf(resource: Record<string, unknown>): { readonly process: string; readonly service?: string } {
  const keys = Object.keys(resource).sort();
  const process = keys.length === 0 ? '(no resource)' : JSON.stringify(keys.map((key) => [key, resource[key]]));
  const service = resource[ATTR_SERVICE_NAME];
  return typeof service === 'string' ? { process, service } : { process };
}

/** The problem of an attribute value left out for its depth, `where` naming its span or resource. */
export function tooDeepProblem(where: string, key: string): string {
  return `${where}: attribute ${JSON.stringify(key)} nested deeper than ${MAX_VALUE_DEPTH} levels; left out`;
}

/** The problem of a span skipped for want of ids or a start time. */
export function skippedSpanProblem(name: string): string {
  return `span ${JSON.stringify(name || '?')} skipped: missing traceId, spanId or startTimeUnixNano`;
}

/** The status of a span, `code` as OTLP numbers it, a message only when there is one. */
export function spanStatus(code: number, message: string | undefined): { code: number; message?: string } {
  return message === undefined || message === '' ? { code } : { code, message };
}

/** Decodes one OTLP document; returns false when the value is not OTLP. */
export function decodeOtlp(document: unknown, sink: DecodeSink, line?: number): boolean {
  const resourceSpans = otlpResourceSpans(document);
  if (!resourceSpans) return false;
  for (const resourceSpan of resourceSpans) {
    if (!isRecord(resourceSpan)) continue;
    const resource = isRecord(resourceSpan.resource)
      ? keyValues(resourceSpan.resource.attributes, (key) => sink.problem(tooDeepProblem('resource', key), line))
      : record();
    const { process, service } = processOf(resource);
    const scopes =
      field(resourceSpan, 'scopeSpans', 'scope_spans') ??
      field(resourceSpan, 'instrumentationLibrarySpans', 'instrumentation_library_spans');
    if (!Array.isArray(scopes)) continue;
    for (const scope of scopes) {
      if (!isRecord(scope) || !Array.isArray(scope.spans)) continue;
      for (const span of scope.spans) {
        if (!isRecord(span)) continue;
        const name = typeof span.name === 'string' ? span.name : '';
        const leftOut = (key: string) => sink.problem(tooDeepProblem(`span ${JSON.stringify(name)}`, key), line);
        const traceId = normalizeId(field(span, 'traceId', 'trace_id'), 16);
        const spanId = normalizeId(field(span, 'spanId', 'span_id'), 8);
        const startUs = nanosToMicros(field(span, 'startTimeUnixNano', 'start_time_unix_nano'));
        if (!traceId || !spanId || startUs === undefined) {
          sink.problem(skippedSpanProblem(name), line);
          continue;
        }
        const endUs = nanosToMicros(field(span, 'endTimeUnixNano', 'end_time_unix_nano')) ?? startUs;
        const parentSpanId = normalizeId(field(span, 'parentSpanId', 'parent_span_id'), 8);
        const events = Array.isArray(span.events)
          ? span.events.filter(isRecord).map((event) => ({
              name: typeof event.name === 'string' ? event.name : '',
              attributes: keyValues(event.attributes, leftOut),
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
          resource,
          view: {
            name,
            attributes: keyValues(span.attributes, leftOut),
            status: statusOf(span.status),
            events,
          },
        });
      }
    }
  }
  return true;
}
