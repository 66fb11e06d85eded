import type { Digester } from '../../engine/hashing/digest.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import { isRecord } from '../../util/is-record.js';
import { decodeOtlp, otlpResourceSpans } from '../readers/otlp.js';
import type { DecodeSink } from '../readers/types.js';
import { hashedSpan, type PooledSpan } from '../replay/trace-replay.js';

/** A received span, read and hashed, with its process's resource (for the outputs that name the process). */
export interface ServedSpan extends PooledSpan {
  readonly resource: Readonly<Record<string, unknown>>;
}

/** What one export request gave. */
export interface Intake {
  readonly spans: ServedSpan[];
  /** Spans of the request that could not be used (no valid ids or start time). */
  readonly rejected: number;
  /** Why the first of them could not, for the request's partial success. */
  readonly problem?: string;
}

/** An export request's spans, as its encoding's reader reads them. */
export interface SpanSource {
  /** Spans the reader goes through (fed to the sink, or skipped with a problem). */
  readonly count: number;
  /** Spans the decoding already left out, and why the first was. */
  readonly rejected: number;
  readonly problem?: string;
  /** Feeds the spans to `sink`, with the problems met. */
  read(sink: DecodeSink): void;
}

/** A request that is no OTLP trace export: answered as a bad request. */
export class NotAnExportRequest extends Error {
  override readonly name = 'NotAnExportRequest';
}

const NO_RESOURCE: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The spans of an export request in the OTLP JSON shape, read by the analyzer's OTLP reader.
 * Throws {@link NotAnExportRequest} for a value that is no `ExportTraceServiceRequest` (an empty
 * object is one: it holds no spans).
 */
export function jsonSpanSource(request: unknown): SpanSource {
  if (!isRecord(request)) throw new NotAnExportRequest('the body is not an ExportTraceServiceRequest object');
  const resourceSpans = otlpResourceSpans(request);
  if (resourceSpans === undefined) {
    const keys = Object.keys(request);
    if (keys.length === 0) return { count: 0, rejected: 0, read: () => undefined };
    throw new NotAnExportRequest(`the body has no resourceSpans (keys: ${keys.slice(0, 5).join(', ')})`);
  }
  return { count: countSpans(resourceSpans), rejected: 0, read: (sink) => decodeOtlp(request, sink) };
}

/** Turns export requests into spans the replay reads: each hashed once by the adapters, its raw content dropped here. */
export class SpanIntake {
  constructor(
    private readonly adapters: readonly ToolSpanAdapter[],
    private readonly digester: Digester,
  ) {}

  /**
   * Reads a request in the OTLP JSON shape (see {@link jsonSpanSource}, which throws for one that
   * is no export request). `rejected` / `problem`: spans its decoding already left out.
   */
  read(request: unknown, rejected = 0, problem?: string): Intake {
    const source = jsonSpanSource(request);
    return this.take({ ...source, rejected, ...(problem !== undefined ? { problem } : {}) });
  }

  /** Reads a request's spans from its reader. */
  take(source: SpanSource): Intake {
    const spans: ServedSpan[] = [];
    let firstProblem = source.problem;
    source.read({
      span: (span) => {
        const served = hashedSpan(span, 'otlp', this.adapters, this.digester) as PooledSpan & { resource: unknown };
        served.resource = span.resource ?? NO_RESOURCE;
        spans.push(served as ServedSpan);
      },
      problem: (message) => {
        firstProblem ??= message;
      },
    });
    const rejected = source.rejected + source.count - spans.length;
    return { spans, rejected, ...(firstProblem !== undefined && rejected > 0 ? { problem: firstProblem } : {}) };
  }
}

/** The spans a request holds, counted as the reader walks them. */
function countSpans(resourceSpans: readonly unknown[]): number {
  let count = 0;
  for (const resourceSpan of resourceSpans) {
    if (!isRecord(resourceSpan)) continue;
    const scopes =
      resourceSpan.scopeSpans ??
      resourceSpan.scope_spans ??
      resourceSpan.instrumentationLibrarySpans ??
      resourceSpan.instrumentation_library_spans;
    if (!Array.isArray(scopes)) continue;
    for (const scope of scopes)
      if (isRecord(scope) && Array.isArray(scope.spans)) count += scope.spans.filter(isRecord).length;
  }
  return count;
}
