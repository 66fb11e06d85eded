import type { Attributes, Context, HrTime } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** What one span looked like at each step of its lifecycle, as a span processor sees it. */
export interface SpanLifecycle {
  /** The name at `onStart`. */
  readonly name: string;
  /** The name at `onEnd` (instrumentations may rename a span before ending it). */
  nameAtEnd: string | undefined;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly startTime: HrTime;
  /** Attributes when the SDK called `onStart` (before the instrumentation's body ran). */
  readonly atStart: Attributes;
  /** Attributes when the SDK called `onEnding` (undefined on SDKs without it). */
  atEnding: Attributes | undefined;
  /** Attributes when the SDK called `onEnd` (what exporters receive). */
  atEnd: Attributes | undefined;
  /** Names of span events at `onEnd`. */
  eventNames: string[];
  statusCode: number | undefined;
}

/** Keys present at `onEnd` that were not there at `onStart`. */
export function keysAddedAfterStart(span: SpanLifecycle): string[] {
  return Object.keys(span.atEnd ?? {}).filter((key) => !(key in span.atStart));
}

// SDK 2.x exposes the parent as parentSpanContext, SDK 1.x as parentSpanId.
function parentIdOf(span: ReadableSpan): string | undefined {
  const legacy = span as ReadableSpan & { parentSpanId?: string };
  return span.parentSpanContext?.spanId ?? legacy.parentSpanId;
}

/**
 * A span processor that records each span's attributes at `onStart`, `onEnding` and `onEnd`,
 * so a test can say which attributes an instrumentation sets before its body runs and which
 * it sets later.
 */
export class SpanRecorder implements SpanProcessor {
  readonly spans: SpanLifecycle[] = [];
  private readonly open = new WeakMap<object, SpanLifecycle>();

  onStart(span: Span, _parentContext: Context): void {
    const context = span.spanContext();
    const lifecycle: SpanLifecycle = {
      name: span.name,
      nameAtEnd: undefined,
      kind: span.kind,
      traceId: context.traceId,
      spanId: context.spanId,
      parentSpanId: parentIdOf(span),
      startTime: span.startTime,
      atStart: { ...span.attributes },
      atEnding: undefined,
      atEnd: undefined,
      eventNames: [],
      statusCode: undefined,
    };
    this.open.set(span, lifecycle);
    this.spans.push(lifecycle);
  }

  onEnding(span: Span): void {
    const lifecycle = this.open.get(span);
    if (lifecycle) lifecycle.atEnding = { ...span.attributes };
  }

  onEnd(span: ReadableSpan): void {
    const lifecycle = this.open.get(span);
    if (!lifecycle) return;
    lifecycle.atEnd = { ...span.attributes };
    lifecycle.nameAtEnd = span.name;
    lifecycle.eventNames = span.events.map((event) => event.name);
    lifecycle.statusCode = span.status.code;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  named(pattern: RegExp): SpanLifecycle[] {
    return this.spans.filter((span) => pattern.test(span.name));
  }
}
