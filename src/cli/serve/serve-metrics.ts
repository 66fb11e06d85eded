import type { Attributes, Counter, Meter } from '@opentelemetry/api';
import * as sc from '../../semconv.js';
import type { RunReleaseReason } from '../../spans/run-registry.js';

/** What the service holds now, read when its metrics are collected. */
export interface ServeGauges {
  readonly bufferedSpans: () => number;
  readonly liveRuns: () => number;
}

/** What the service received, in its own counters. */
export interface ServeTotals {
  /** Spans buffered to be judged. */
  accepted: number;
  /** Spans left out as malformed. */
  rejected: number;
  /** Requests refused with the protocol's retryable status. */
  refusedRequests: number;
}

/**
 * The service's own metrics, under its own resource: spans received by outcome
 * (`tool_loop.serve.spans`), requests refused (`tool_loop.serve.refused_requests`), runs released by reason (`tool_loop.serve.released_runs`), and the
 * spans and runs it holds (`tool_loop.serve.buffered_spans`, `tool_loop.serve.live_runs`: what a
 * replica that dies loses). The totals are kept here too, for the service's log lines.
 */
export class ServeMetrics {
  readonly totals: ServeTotals = { accepted: 0, rejected: 0, refusedRequests: 0 };
  readonly released: Record<RunReleaseReason, number> = { 'root-ended': 0, idle: 0, capacity: 0, shutdown: 0 };
  private readonly spanCounter: Counter<Attributes>;
  private readonly releasedCounter: Counter<Attributes>;
  private readonly refusedCounter: Counter<Attributes>;

  constructor(meter: Meter, gauges: ServeGauges) {
    this.spanCounter = meter.createCounter(sc.METRIC_TOOL_LOOP_SERVE_SPANS, {
      description: 'Spans tool-loop-guard serve received: accepted (to be judged) or rejected (malformed)',
      unit: '{span}',
    });
    this.refusedCounter = meter.createCounter(sc.METRIC_TOOL_LOOP_SERVE_REFUSED_REQUESTS, {
      description: 'Export requests tool-loop-guard serve refused with the retryable status (buffer full, stopping)',
      unit: '{request}',
    });
    this.releasedCounter = meter.createCounter(sc.METRIC_TOOL_LOOP_SERVE_RELEASED_RUNS, {
      description: 'Runs whose detection state tool-loop-guard serve released, by reason',
      unit: '{run}',
    });
    meter
      .createObservableGauge(sc.METRIC_TOOL_LOOP_SERVE_BUFFERED_SPANS, {
        description: 'Spans tool-loop-guard serve holds until their trace is judged',
        unit: '{span}',
      })
      .addCallback((result) => result.observe(gauges.bufferedSpans()));
    meter
      .createObservableGauge(sc.METRIC_TOOL_LOOP_SERVE_LIVE_RUNS, {
        description: 'Runs whose detection state tool-loop-guard serve holds (lost if the replica dies)',
        unit: '{run}',
      })
      .addCallback((result) => result.observe(gauges.liveRuns()));
  }

  /** Spans of a request, by outcome. */
  spans(outcome: 'accepted' | 'rejected', count: number): void {
    if (count <= 0) return;
    this.totals[outcome] += count;
    this.spanCounter.add(count, {
      [sc.ATTR_TOOL_LOOP_SERVE_OUTCOME]: outcome === 'accepted' ? sc.SERVE_OUTCOME_ACCEPTED : sc.SERVE_OUTCOME_REJECTED,
    });
  }

  /** A request was refused, unread. */
  refused(): void {
    this.totals.refusedRequests += 1;
    this.refusedCounter.add(1);
  }

  /** A run was released. */
  runReleased(reason: RunReleaseReason): void {
    this.released[reason] += 1;
    this.releasedCounter.add(1, { [sc.ATTR_TOOL_LOOP_SERVE_REASON]: reason });
  }
}
