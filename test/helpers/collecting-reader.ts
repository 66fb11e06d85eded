import { AggregationTemporality, MetricReader } from '@opentelemetry/sdk-metrics';

/** A real SDK metric reader that keeps cumulative points until a test calls `collect()`. */
export class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}
