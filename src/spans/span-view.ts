/**
 * The read-only view of a span that adapters work on. The SDK's `Span` / `ReadableSpan`
 * satisfy it structurally, and so do spans decoded from OTLP or Jaeger files, which is what
 * lets the processor and the offline analyzer share adapters.
 */
export interface SpanView {
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** `code` 2 is ERROR (OTel `SpanStatusCode.ERROR`). */
  readonly status?: { readonly code: number; readonly message?: string };
  readonly events?: ReadonlyArray<{ readonly name: string; readonly attributes?: Readonly<Record<string, unknown>> }>;
}

/** The span id of a span or span-like object that has `spanContext()`, if any. */
export function spanIdOf(span: object): string | undefined {
  return (span as { spanContext?: () => { spanId?: string } }).spanContext?.()?.spanId;
}

/** OTel `SpanStatusCode.ERROR`. */
export const STATUS_CODE_ERROR = 2;
