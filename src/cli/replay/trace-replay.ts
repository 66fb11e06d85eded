import type { ResolvedLoopDetectionConfig } from '../../engine/config.js';
import type { Digester } from '../../engine/hashing/digest.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import type { SpanView } from '../../spans/span-view.js';
import type { EngineLogger } from '../../util/logger.js';
import type { DecodedSpan } from '../readers/types.js';
import { prepareSpan } from './prepared-span.js';
import { SpanReplayer, type ReplayedRun, type ReplaySpan } from './span-replayer.js';

/** A prepared span with its place in the recorded trace tree and timeline. */
export interface PooledSpan extends ReplaySpan {
  /** Start and end, microseconds since the epoch. */
  readonly startUs: number;
  readonly endUs: number;
  /** The emitting process (resource / Jaeger process); each has its own processor live. */
  readonly process: string;
}

/** Builds a {@link PooledSpan} (with the `spanContext()` the run scopes use). */
export function pooledSpan(fields: Omit<PooledSpan, 'spanContext'>): PooledSpan {
  return Object.assign(Object.create(POOLED_SPAN_PROTO) as PooledSpan, fields);
}

/** A span decoded from `source`, read and hashed once: what the replay needs of it, no raw content. */
export function hashedSpan(
  span: DecodedSpan,
  source: string,
  adapters: readonly ToolSpanAdapter[],
  digester: Digester,
): PooledSpan {
  const ids = { traceId: span.traceId, spanId: span.spanId };
  return pooledSpan({
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
    startUs: span.startUs,
    endUs: span.endUs,
    process: span.process,
    source,
    // Adapters may read the span's ids (e.g. for calls whose arguments were not captured).
    prepared: prepareSpan(adapters, digester, { ...span.view, spanContext: () => ids } as SpanView),
  });
}

const POOLED_SPAN_PROTO = {
  spanContext(this: PooledSpan) {
    return { traceId: this.traceId, spanId: this.spanId };
  },
};

/** A replayed run and the process it ran in. */
export interface ProcessRun extends ReplayedRun {
  readonly process: string;
}

export interface TraceReplayOptions {
  /** A run's settings, from its agent id. */
  readonly configFor: (agentId: string | undefined) => ResolvedLoopDetectionConfig;
  readonly logger?: EngineLogger;
  readonly runIdleTtlMs: number;
  readonly maxLiveRuns: number;
  /** Keep a per-call timeline of each run, of at most this many calls (see `SpanReplayerOptions`). */
  readonly timelineCalls?: number;
  /** Calls watched after each surfaced verdict (see `SpanReplayerOptions`). */
  readonly recoveryWindow?: number;
  /** Nothing is blocked (see `SpanReplayerOptions`). */
  readonly shadow?: boolean;
}

interface TimelineEvent {
  readonly time: number;
  /** 0: end of a span with a duration; 1 ({@link START}): a start; 2: end of a zero-duration span. */
  readonly phase: 0 | 1 | 2;
  /** Starts shallowest first, ends deepest first. */
  readonly depthKey: number;
  readonly seq: number;
  readonly span: PooledSpan;
}

const START = 1;

const keyOf = (process: string, traceId: string, spanId: string) => `${process}\u0000${traceId}\u0000${spanId}`;

/**
 * Rebuilds the span trees of recorded traces and replays every start and end in time order
 * through one {@link SpanReplayer} per process (live, each process has its own processor,
 * and a parent in another process is a remote parent). Ties at one timestamp: ends of spans
 * that lasted, then starts (parents before children), then ends of zero-length spans
 * (children before parents), then input order.
 */
export function replayTraces(spans: readonly PooledSpan[], options: TraceReplayOptions): ProcessRun[] {
  const replayers = new Map<string, SpanReplayer>();
  replayInTimeOrder(spans, {
    replayerOf: (span) => {
      let replayer = replayers.get(span.process);
      if (!replayer) {
        replayer = new SpanReplayer(options);
        replayers.set(span.process, replayer);
      }
      return replayer;
    },
  });
  const runs: ProcessRun[] = [];
  for (const [process, replayer] of replayers) {
    replayer.finish();
    for (const run of replayer.runs) runs.push(Object.assign(run, { process }));
  }
  return runs;
}

/** Where {@link replayInTimeOrder} replays each span. */
export interface SpanRouting {
  /** The replayer of the span's process. */
  readonly replayerOf: (span: PooledSpan) => SpanReplayer;
  /**
   * The parent to start a span under when it has a parent that is not among the spans (a
   * stand-in the caller keeps live in that replayer), asked as the span starts at `timeMs`.
   * Default: none, as for a root.
   */
  readonly missingParent?: (span: PooledSpan, timeMs: number) => ReplaySpan | undefined;
}

/**
 * Replays the starts and ends of spans in time order, parents found among them by process,
 * trace and span id (see {@link replayTraces} for the order of ties). Every span is started
 * and ended: the spans are whole, as recorded or as exported.
 */
export function replayInTimeOrder(spans: readonly PooledSpan[], routing: SpanRouting): void {
  const byKey = new Map<string, PooledSpan>();
  for (const span of spans) byKey.set(keyOf(span.process, span.traceId, span.spanId), span);
  const parentOf = (span: PooledSpan): PooledSpan | undefined =>
    span.parentSpanId === undefined ? undefined : byKey.get(keyOf(span.process, span.traceId, span.parentSpanId));

  const depths = new Map<PooledSpan, number>();
  const depthOf = (span: PooledSpan): number => {
    const known = depths.get(span);
    if (known !== undefined) return known;
    const chain: PooledSpan[] = [];
    const seen = new Set<PooledSpan>();
    let cursor: PooledSpan | undefined = span;
    let base = 0;
    while (cursor && !seen.has(cursor)) {
      const cached = depths.get(cursor);
      if (cached !== undefined) {
        base = cached + 1;
        break;
      }
      seen.add(cursor);
      chain.push(cursor);
      cursor = parentOf(cursor);
    }
    for (let i = chain.length - 1; i >= 0; i -= 1) depths.set(chain[i], base + (chain.length - 1 - i));
    return depths.get(span)!;
  };

  const events: TimelineEvent[] = [];
  spans.forEach((span, seq) => {
    const depth = depthOf(span);
    const endUs = Math.max(span.endUs, span.startUs);
    events.push({ time: span.startUs, phase: START, depthKey: depth, seq, span });
    events.push({ time: endUs, phase: endUs > span.startUs ? 0 : 2, depthKey: -depth, seq, span });
  });
  events.sort((a, b) => a.time - b.time || a.phase - b.phase || a.depthKey - b.depthKey || a.seq - b.seq);

  const { missingParent } = routing;
  for (const event of events) {
    const { span } = event;
    const replayer = routing.replayerOf(span);
    const timeMs = event.time / 1000;
    if (event.phase !== START) replayer.end(span, timeMs);
    else {
      const parent = parentOf(span) ?? (span.parentSpanId !== undefined ? missingParent?.(span, timeMs) : undefined);
      replayer.start(span, parent, timeMs);
    }
  }
}
