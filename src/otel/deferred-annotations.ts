import type { Attributes, AttributeValue, HrTime, Span, SpanContext, TimeInput } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { setBounded } from '../util/bounded-map.js';

/** What the processor decided on an ended span that it could no longer write to. */
interface Pending {
  readonly attributes: Record<string, AttributeValue>;
  readonly events: TimedEvent[];
  /** Content attributes to remove (`redactContent`). */
  readonly redact: string[];
}

const keyOf = (context: SpanContext): string => `${context.traceId}/${context.spanId}`;

/** Most ended spans whose annotations wait for their export (oldest dropped first). */
const MAX_PENDING = 10_000;

/**
 * Annotations of spans that ended on an SDK without `onEnding` (before 2.3): the span is
 * read-only by the time the processor judges it in `onEnd`, so its loop events, verdict
 * attribute and redactions are kept here, keyed by span id, until the exporter wrapped with
 * `wrapExporter` applies them to the exported copy. Keyed by id, not by object: an SDK may
 * hand the exporter a wrapper of the span (the Traceloop SDK exports a `Proxy` of it).
 */
export class DeferredAnnotations {
  private readonly pending = new Map<string, Pending>();

  /**
   * A stand-in for the ended `span` that the emitter writes to as if it were writable: what it
   * sets and adds is kept for the span's export. It reads as the span it stands for.
   */
  recorder(span: ReadableSpan): Span {
    const entry = this.entry(span.spanContext());
    const time: HrTime = span.endTime;
    const recorder: Span = {
      spanContext: () => span.spanContext(),
      setAttribute: (key: string, value: AttributeValue) => {
        entry.attributes[key] = value;
        return recorder;
      },
      setAttributes: (attributes: Attributes) => {
        for (const [key, value] of Object.entries(attributes)) if (value !== undefined) entry.attributes[key] = value;
        return recorder;
      },
      addEvent: (name: string, attributes?: Attributes | TimeInput) => {
        const eventAttributes =
          typeof attributes === 'object' && !Array.isArray(attributes) && !(attributes instanceof Date)
            ? attributes
            : {};
        entry.events.push({ name, attributes: eventAttributes, time, droppedAttributesCount: 0 });
        return recorder;
      },
      addLink: () => recorder,
      addLinks: () => recorder,
      setStatus: () => recorder,
      updateName: () => recorder,
      end: () => undefined,
      isRecording: () => false,
      recordException: () => undefined,
    };
    return recorder;
  }

  /** Content attributes to remove from the span's export. */
  redact(span: ReadableSpan, keys: readonly string[]): void {
    if (keys.length > 0) this.entry(span.spanContext()).redact.push(...keys);
  }

  /** Takes (and forgets) what waits for the span's export. */
  take(span: ReadableSpan): Pending | undefined {
    const key = keyOf(span.spanContext());
    const entry = this.pending.get(key);
    if (entry) this.pending.delete(key);
    return entry;
  }

  private entry(context: SpanContext): Pending {
    const key = keyOf(context);
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { attributes: {}, events: [], redact: [] };
      setBounded(this.pending, key, entry, MAX_PENDING);
    }
    return entry;
  }
}

/**
 * The span as it is exported: its attributes with `pending`'s set and its redactions (and
 * `alwaysRedact`) removed, its events followed by `pending`'s. A `Proxy`, so every other field
 * and method is the span's own, whatever SDK version made it.
 */
export function annotatedView(
  span: ReadableSpan,
  pending: Pending | undefined,
  alwaysRedact: readonly string[],
): ReadableSpan {
  const redact = [...alwaysRedact, ...(pending?.redact ?? [])].filter((key) => key in span.attributes);
  const added = pending ? Object.keys(pending.attributes).length + pending.events.length : 0;
  if (redact.length === 0 && added === 0) return span;
  const attributes: Attributes = { ...span.attributes, ...pending?.attributes };
  for (const key of redact) delete attributes[key];
  const events = pending && pending.events.length > 0 ? [...span.events, ...pending.events] : span.events;
  return new Proxy(span, {
    get(target, property, receiver) {
      if (property === 'attributes') return attributes;
      if (property === 'events') return events;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
