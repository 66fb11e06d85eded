import type { SpanView } from '../../src/spans/span-view.js';

/** A plain span object, for driving `SpanGuard` without OpenTelemetry. */
export interface TestSpan extends SpanView {
  attributes: Record<string, unknown>;
  spanContext(): { traceId: string; spanId: string };
}

/**
 * A maker of {@link TestSpan}s in `defaultTraceId` (unless one is given), with span ids of 16
 * hex digits as OpenTelemetry's: 0000000000000001, 0000000000000002, ...
 */
export function plainSpans(
  defaultTraceId: string,
): (name: string, attributes: Record<string, unknown>, traceId?: string) => TestSpan {
  let next = 1;
  return (name, attributes, traceId = defaultTraceId) => {
    const ids = { traceId, spanId: (next++).toString(16).padStart(16, '0') };
    return { name, attributes, spanContext: () => ids };
  };
}
