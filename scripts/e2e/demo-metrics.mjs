// Preload for `node --import ./scripts/e2e/demo-metrics.mjs dist/esm/cli/demo.js`: registers a global
// MeterProvider that exports over OTLP/HTTP (JSON) to $OTEL_EXPORTER_OTLP_ENDPOINT/v1/metrics, so the
// library's own `tool_loop.events` counter reaches the collector next to the demo's spans.
//
// Why a preload: the demo exports spans only, and the processor takes its counter from the global
// MeterProvider when it is created. The OTLP metric exporter package is not a dependency of this repo, so
// the exporter is assembled from the same OTLP building blocks the trace exporter uses (same versions).
import { metrics } from '@opentelemetry/api';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonMetricsSerializer, MetricsExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

/** OTLP/HTTP JSON metric exporter with cumulative temporality (what Prometheus expects). */
class OtlpHttpJsonMetricExporter extends OTLPExporterBase {
  constructor() {
    const options = convertLegacyHttpOptions({}, 'METRICS', 'v1/metrics', { 'Content-Type': 'application/json' });
    super(createOtlpHttpExportDelegate(options, JsonMetricsSerializer, 'otlp_http_metric_exporter', MetricsExporterMetricsHelper));
  }

  selectAggregationTemporality() {
    return AggregationTemporality.CUMULATIVE;
  }
}

const provider = new MeterProvider({
  resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'tool-loop-guard-demo' }),
  readers: [new PeriodicExportingMetricReader({ exporter: new OtlpHttpJsonMetricExporter(), exportIntervalMillis: 60_000 })],
});
metrics.setGlobalMeterProvider(provider);

// The demo ends when its event loop drains; shutting down exports the final cumulative values once.
process.once('beforeExit', () => {
  provider.shutdown().catch((error) => {
    console.error('demo-metrics: metric export failed', error);
    process.exitCode = 1;
  });
});
