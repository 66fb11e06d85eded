import { STATUS_CODE_ERROR } from '../../spans/span-view.js';
import { normalizeId } from './ids.js';
import type { DecodeSink } from './types.js';
import { isRecord } from '../../util/is-record.js';

/**
 * Jaeger JSON (UI "Download JSON" and the query API `/api/traces`):
 * `{data: [{traceID, spans: [{spanID, operationName, references, startTime, duration, tags,
 * logs, processID}], processes}]}`; a single `{traceID, spans, processes}` is accepted too.
 * Status comes from the `otel.status_code` / `otel.status_description` tags (or `error` =
 * true); events from `logs`, named by their `event` field.
 */

type Json = Record<string, unknown>;
/** The traces of a Jaeger document, or `undefined` when it is not one. */
export function jaegerTraces(document: unknown): Json[] | undefined {
  if (!isRecord(document)) return undefined;
  if (Array.isArray(document.data)) return document.data.filter(isRecord);
  if (typeof document.traceID === 'string' && Array.isArray(document.spans)) return [document];
  return undefined;
}

/** A tag's value: Jaeger's are scalars (binary ones base64 text); anything else is left out (`undefined`). */
function tagValue(tag: Json): unknown {
  const { type, value } = tag;
  switch (typeof type === 'string' ? type.toLowerCase() : '') {
    case 'bool':
      return value === true || value === 'true';
    case 'int64':
    case 'float64':
      return typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : undefined;
    default:
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }
}

/**
 * `[{key, type, value}]` → record, without a prototype (a key `__proto__` is a key like any
 * other); a tag whose value is no scalar is left out.
 */
export function jaegerTags(list: unknown): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  if (!Array.isArray(list)) return out;
  for (const tag of list) {
    if (!isRecord(tag) || typeof tag.key !== 'string') continue;
    const value = tagValue(tag);
    if (value !== undefined) out[tag.key] = value;
  }
  return out;
}

function processKey(process: unknown): string {
  if (!isRecord(process)) return '(unknown process)';
  const tags = jaegerTags(process.tags);
  const keys = Object.keys(tags).sort();
  return JSON.stringify([process.serviceName ?? '', ...keys.map((key) => [key, tags[key]])]);
}

function micros(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** Decodes one Jaeger document; returns false when the value is not Jaeger JSON. */
export function decodeJaeger(document: unknown, sink: DecodeSink, line?: number): boolean {
  const traces = jaegerTraces(document);
  if (!traces) return false;
  for (const trace of traces) {
    const processes = isRecord(trace.processes) ? trace.processes : {};
    if (!Array.isArray(trace.spans)) continue;
    for (const span of trace.spans) {
      if (!isRecord(span)) continue;
      const traceId = normalizeId(span.traceID ?? trace.traceID, 16, true);
      const spanId = normalizeId(span.spanID, 8, true);
      const startUs = micros(span.startTime);
      if (!traceId || !spanId || startUs === undefined) {
        sink.problem(
          `span ${JSON.stringify(typeof span.operationName === 'string' ? span.operationName : '?')} skipped: missing traceID, spanID or startTime`,
          line,
        );
        continue;
      }
      const references = Array.isArray(span.references) ? span.references.filter(isRecord) : [];
      const parentRef =
        references.find(
          (ref) =>
            ref.refType === 'CHILD_OF' && (ref.traceID === undefined || normalizeId(ref.traceID, 16, true) === traceId),
        ) ??
        references.find((ref) => ref.refType === 'CHILD_OF') ??
        references[0];
      const parentSpanId = normalizeId(parentRef?.spanID ?? span.parentSpanID, 8, true);
      const attributes = jaegerTags(span.tags);
      const statusCode = attributes['otel.status_code'];
      const failed = statusCode === 'ERROR' || (statusCode === undefined && attributes.error === true);
      const description = attributes['otel.status_description'];
      const status = failed
        ? {
            code: STATUS_CODE_ERROR,
            ...(typeof description === 'string' && description !== '' ? { message: description } : {}),
          }
        : { code: statusCode === 'OK' ? 1 : 0 };
      const events = Array.isArray(span.logs)
        ? span.logs.filter(isRecord).map((log) => {
            const fields = jaegerTags(log.fields);
            const name = typeof fields.event === 'string' ? fields.event : '';
            delete fields.event;
            return { name, attributes: fields };
          })
        : [];
      const processId = typeof span.processID === 'string' ? span.processID : '';
      const processInfo = isRecord(span.process) ? span.process : processes[processId];
      const service =
        isRecord(processInfo) && typeof processInfo.serviceName === 'string' ? processInfo.serviceName : undefined;
      sink.span({
        traceId,
        spanId,
        ...(parentSpanId !== undefined ? { parentSpanId } : {}),
        startUs,
        endUs: startUs + (micros(span.duration) ?? 0),
        process: processKey(processInfo),
        ...(service !== undefined ? { service } : {}),
        view: { name: typeof span.operationName === 'string' ? span.operationName : '', attributes, status, events },
      });
    }
  }
  return true;
}
