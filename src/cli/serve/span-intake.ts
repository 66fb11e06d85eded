import type { Digester } from '../../engine/hashing/digest.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import { isRecord } from '../../util/is-record.js';
import { decodeOtlp, otlpResourceSpans } from '../readers/otlp.js';
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

/** A request that is no OTLP trace export: answered as a bad request. */
export class NotAnExportRequest extends Error {
  override readonly name = 'NotAnExportRequest';
}

const NO_RESOURCE: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Turns an export request, in the OTLP JSON shape (as sent, or decoded from protobuf), into
 * spans the replay reads: each decoded by the analyzer's OTLP reader and hashed once by the
 * adapters, its raw content dropped here.
 */
export class SpanIntake {
  constructor(
    private readonly adapters: readonly ToolSpanAdapter[],
    private readonly digester: Digester,
  ) {}

  /**
   * Reads a request. `rejected` / `problem`: spans its decoding already left out. Throws
   * {@link NotAnExportRequest} for a value that is no `ExportTraceServiceRequest` (an empty
   * object is one: it holds no spans).
   */
  read(request: unknown, rejected = 0, problem?: string): Intake {
    if (!isRecord(request)) throw new NotAnExportRequest('the body is not an ExportTraceServiceRequest object');
    const resourceSpans = otlpResourceSpans(request);
    if (resourceSpans === undefined) {
      const keys = Object.keys(request);
      if (keys.length === 0) return { spans: [], rejected, ...(problem !== undefined ? { problem } : {}) };
      throw new NotAnExportRequest(`the body has no resourceSpans (keys: ${keys.slice(0, 5).join(', ')})`);
    }
    const sent = countSpans(resourceSpans);
    const spans: ServedSpan[] = [];
    let firstProblem = problem;
    decodeOtlp(request, {
      span: (span) => {
        const served = hashedSpan(span, 'otlp', this.adapters, this.digester) as PooledSpan & { resource: unknown };
        served.resource = span.resource ?? NO_RESOURCE;
        spans.push(served as ServedSpan);
      },
      problem: (message) => {
        firstProblem ??= message;
      },
    });
    const skipped = sent - spans.length;
    return {
      spans,
      rejected: rejected + skipped,
      ...(firstProblem !== undefined && rejected + skipped > 0 ? { problem: firstProblem } : {}),
    };
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
