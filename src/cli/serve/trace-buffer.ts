/** When a trace's buffered spans are judged, and how many may wait. */
export interface TraceBufferLimits {
  /**
   * A trace whose root span arrived is judged once none of its spans arrived for this long
   * (ms): spans that ended before the root but come in a later batch still make it.
   */
  readonly graceMs: number;
  /**
   * A trace is judged at the latest this long (ms) after its oldest waiting span arrived, root or
   * not: a long run is judged as it goes, and so is a trace whose root is in another process.
   */
  readonly maxWaitMs: number;
  /** Spans waiting, all traces together, at which the buffer is full (requests are refused, to be retried). */
  readonly maxSpans: number;
  /** Spans of one trace at which that trace is judged at once. */
  readonly maxTraceSpans: number;
}

/** What the buffer reads of a span. */
export interface BufferedSpanFields<S> {
  readonly traceOf: (span: S) => string;
  /** A trace's root: a span without a parent (it ends last, so it arrives last). */
  readonly isRoot: (span: S) => boolean;
}

/** The spans of one trace waiting to be judged. */
interface Waiting<S> {
  readonly traceId: string;
  readonly spans: S[];
  /** Arrival of its oldest waiting span, and of its newest, on the buffer's clock (ms). */
  readonly first: number;
  last: number;
  rooted: boolean;
}

/**
 * Received spans waiting, per trace, for the rest of their trace. Spans arrive after they end,
 * in batches, out of order and split across batches, and a trace's root ends (so arrives) last:
 * a trace is handed out to be judged (its spans in start order, together) once its root came
 * and the grace period passed without another span of it, or once it has waited `maxWaitMs`,
 * or when it holds `maxTraceSpans` spans. Spans of a trace already handed out start a new wait.
 * The buffer holds no timer: the caller asks for what is {@link due}.
 */
export class TraceBuffer<S> {
  private readonly traces = new Map<string, Waiting<S>>();
  private spanCount = 0;

  constructor(
    private readonly limits: TraceBufferLimits,
    private readonly fields: BufferedSpanFields<S>,
  ) {}

  /** Spans waiting. */
  get spans(): number {
    return this.spanCount;
  }

  /** Traces waiting. */
  get size(): number {
    return this.traces.size;
  }

  /** Whether the buffer is full: a new request must wait (see {@link TraceBufferLimits.maxSpans}). */
  get full(): boolean {
    return this.spanCount >= this.limits.maxSpans;
  }

  /** Adds received spans at `now`; returns the traces to judge at once (those that reached `maxTraceSpans`). */
  add(spans: readonly S[], now: number): S[][] {
    const ready: S[][] = [];
    const { traceOf, isRoot } = this.fields;
    let current: Waiting<S> | undefined;
    for (const span of spans) {
      const traceId = traceOf(span);
      if (current?.traceId !== traceId) {
        current = this.traces.get(traceId);
        if (!current) {
          current = { traceId, spans: [], first: now, last: now, rooted: false };
          this.traces.set(traceId, current);
        }
        current.last = now;
      }
      current.spans.push(span);
      if (isRoot(span)) current.rooted = true;
      this.spanCount += 1;
      if (current.spans.length >= this.limits.maxTraceSpans) {
        ready.push(this.take(current));
        current = undefined;
      }
    }
    return ready;
  }

  /** Takes out the traces due at `now`: rooted and quiet for the grace period, or waiting `maxWaitMs`. */
  due(now: number): S[][] {
    const ready: S[][] = [];
    const { graceMs, maxWaitMs } = this.limits;
    for (const waiting of this.traces.values())
      if (now - waiting.first >= maxWaitMs || (waiting.rooted && now - waiting.last >= graceMs))
        ready.push(this.take(waiting));
    return ready;
  }

  /** Takes out every waiting trace (the service stops). */
  drain(): S[][] {
    return [...this.traces.values()].map((waiting) => this.take(waiting));
  }

  private take(waiting: Waiting<S>): S[] {
    this.traces.delete(waiting.traceId);
    this.spanCount -= waiting.spans.length;
    return waiting.spans;
  }
}
