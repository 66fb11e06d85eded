import { randomUUID } from 'node:crypto';
import { createNoopMeter, type Attributes, type AttributeValue, type Meter, type Tracer } from '@opentelemetry/api';
import type { MeterProvider, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { createLoopEventCounter, createRecoveryCounter } from '../../otel/metrics.js';
import type { EmitterCounters } from '../../otel/loop-event-emitter.js';
import { ATTR_SERVICE_NAME } from '../../semconv.js';
import { setBounded } from '../../util/bounded-map.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../version.js';
import type { ServeLog } from './serve-log.js';

/** How {@link ServeTelemetry.start} exports. */
export interface TelemetryOptions {
  /** Base URL of the OTLP/HTTP endpoint; `undefined`: the exporters' environment; `null`: none. */
  readonly exportUrl: string | undefined | null;
  readonly metricIntervalMs: number;
  /** `service.instance.id` of this replica; absent: `service.instance.id` of `OTEL_RESOURCE_ATTRIBUTES`, else a random UUID. */
  readonly instanceId?: string;
  /** Most emitting processes (tracers) and agent services (meters) kept at once. */
  readonly maxProcesses: number;
  readonly log: ServeLog;
}

const ATTR_SERVICE_NAMESPACE = 'service.namespace';
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';
/** Evidence spans are few: they leave within a second, where the default batch delay is 5 s. */
const EVIDENCE_EXPORT_DELAY_MS = 1000;

type Providers = Awaited<ReturnType<typeof loadSdk>>;

/** The OpenTelemetry SDK packages `serve` exports with, loaded only when it starts. */
async function loadSdk() {
  const [traces, metrics, resources, traceExporter, metricExporter] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
  ]);
  return { traces, metrics, resources, traceExporter, metricExporter };
}

/** What `serve` exports through: one span pipeline, one metric exporter. */
interface Pipelines {
  readonly sdk: Providers;
  readonly spans: InstanceType<Providers['traces']['BatchSpanProcessor']>;
  /** Shared by every metric reader; shut down once, by {@link ServeTelemetry.shutdown}. */
  readonly metricExporter: PushMetricExporter;
  readonly own: InstanceType<Providers['metrics']['MeterProvider']>;
}

/**
 * The service's OpenTelemetry outputs. Evidence spans are written under the resource of the
 * process that emitted the judged span (so they sit in the agent's own trace and service), the
 * loop counters under the agent's service with this replica's `service.instance.id` (so
 * Prometheus' `job` is the agent's, and two replicas never write one series), and the service's
 * own metrics under its own resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, default
 * service name `tool-loop-guard`). All over OTLP/HTTP.
 */
export class ServeTelemetry {
  /** By process key, least recently used first. */
  private readonly tracers = new Map<string, Tracer>();
  /** By agent service (`namespace NUL name`), least recently used first. */
  private readonly counters = new Map<
    string,
    { readonly counters: EmitterCounters; readonly provider: MeterProvider }
  >();
  private readonly noopCounters: EmitterCounters;

  private constructor(
    private readonly pipelines: Pipelines | undefined,
    readonly instanceId: string,
    /** The service's own meter. */
    readonly meter: Meter,
    private readonly options: TelemetryOptions,
  ) {
    const noop = createNoopMeter();
    this.noopCounters = { events: noop.createCounter('noop'), recovery: noop.createCounter('noop') };
  }

  /** Sets up the exporters (none with `exportUrl: null`). */
  static async start(options: TelemetryOptions): Promise<ServeTelemetry> {
    const sdk = await loadSdk();
    const own = sdk.resources
      .resourceFromAttributes({ [ATTR_SERVICE_NAME]: PACKAGE_NAME, 'service.version': PACKAGE_VERSION })
      .merge(sdk.resources.detectResources({ detectors: [sdk.resources.envDetector] }));
    const fromEnv = own.attributes[ATTR_SERVICE_INSTANCE_ID];
    const instanceId = options.instanceId ?? (typeof fromEnv === 'string' ? fromEnv : randomUUID());
    if (options.exportUrl === null) return new ServeTelemetry(undefined, instanceId, createNoopMeter(), options);
    const url = (path: string) => (options.exportUrl === undefined ? {} : { url: `${options.exportUrl}${path}` });
    const spans = new sdk.traces.BatchSpanProcessor({
      exporter: new sdk.traceExporter.OTLPTraceExporter(url('/v1/traces')),
      scheduledDelayMillis: EVIDENCE_EXPORT_DELAY_MS,
    });
    const metricExporter = new sdk.metricExporter.OTLPMetricExporter(url('/v1/metrics'));
    const pipelines: Omit<Pipelines, 'own'> = { sdk, spans, metricExporter };
    const ownProvider = new sdk.metrics.MeterProvider({
      resource: own.merge(sdk.resources.resourceFromAttributes({ [ATTR_SERVICE_INSTANCE_ID]: instanceId })),
      readers: [metricReader(pipelines, options.metricIntervalMs)],
    });
    return new ServeTelemetry(
      { ...pipelines, own: ownProvider },
      instanceId,
      ownProvider.getMeter(PACKAGE_NAME, PACKAGE_VERSION),
      options,
    );
  }

  /** The tracer of a process's evidence spans (under its resource); `undefined` without export. */
  tracerFor(process: string, resource: Readonly<Record<string, unknown>>): Tracer | undefined {
    const pipelines = this.pipelines;
    if (!pipelines) return undefined;
    let tracer = this.tracers.get(process);
    if (tracer) {
      this.tracers.delete(process);
      this.tracers.set(process, tracer);
      return tracer;
    }
    const provider = new pipelines.sdk.traces.TracerProvider({
      resource: pipelines.sdk.resources.resourceFromAttributes(attributesOf(resource)),
      spanProcessors: [pipelines.spans],
    });
    tracer = provider.getTracer(PACKAGE_NAME, PACKAGE_VERSION);
    setBounded(this.tracers, process, tracer, this.options.maxProcesses);
    return tracer;
  }

  /** The `tool_loop.events` and `tool_loop.recovery` counters of the agent service of `resource`. */
  countersFor(resource: Readonly<Record<string, unknown>>): EmitterCounters {
    const pipelines = this.pipelines;
    if (!pipelines) return this.noopCounters;
    const name = resource[ATTR_SERVICE_NAME];
    const namespace = resource[ATTR_SERVICE_NAMESPACE];
    const key = `${typeof namespace === 'string' ? namespace : ''}\u0000${typeof name === 'string' ? name : ''}`;
    const known = this.counters.get(key);
    if (known) {
      this.counters.delete(key);
      this.counters.set(key, known);
      return known.counters;
    }
    const { sdk } = pipelines;
    const attributes: Attributes = { [ATTR_SERVICE_INSTANCE_ID]: this.instanceId };
    if (typeof name === 'string') attributes[ATTR_SERVICE_NAME] = name;
    if (typeof namespace === 'string') attributes[ATTR_SERVICE_NAMESPACE] = namespace;
    const provider = new sdk.metrics.MeterProvider({
      // Without a service.name the SDK's default (`unknown_service`) stands, as it would in the agent.
      resource: sdk.resources.defaultResource().merge(sdk.resources.resourceFromAttributes(attributes)),
      readers: [metricReader(pipelines, this.options.metricIntervalMs)],
    });
    const { log } = this.options;
    const entry = {
      counters: { events: createLoopEventCounter(provider, log), recovery: createRecoveryCounter(provider, log) },
      provider,
    };
    this.counters.set(key, entry);
    // Beyond the cap the least recently used service's counters are exported one last time and dropped.
    while (this.counters.size > this.options.maxProcesses) {
      const [oldest, dropped] = this.counters.entries().next().value!;
      this.counters.delete(oldest);
      void dropped.provider.shutdown().catch(() => undefined);
    }
    return entry.counters;
  }

  /** Exports what is pending: evidence spans and every counter's current value. */
  async flush(): Promise<void> {
    const pipelines = this.pipelines;
    if (!pipelines) return;
    await Promise.allSettled([
      pipelines.spans.forceFlush(),
      pipelines.own.forceFlush(),
      ...[...this.counters.values()].map(({ provider }) => provider.forceFlush()),
    ]);
  }

  /** Exports what is pending (a last export of every counter), then shuts the exporters down. */
  async shutdown(): Promise<void> {
    const pipelines = this.pipelines;
    if (!pipelines) return;
    const providers = [...this.counters.values()].map(({ provider }) => provider);
    this.counters.clear();
    await Promise.allSettled([
      pipelines.spans.shutdown(),
      pipelines.own.shutdown(),
      ...providers.map((provider) => provider.shutdown()),
    ]);
    await pipelines.metricExporter.shutdown().catch(() => undefined);
  }
}

/** A periodic reader over the shared metric exporter, which only {@link ServeTelemetry.shutdown} shuts down. */
function metricReader(pipelines: Omit<Pipelines, 'own'>, intervalMs: number) {
  const shared = pipelines.metricExporter;
  const exporter: PushMetricExporter = {
    export: (metrics, done) => shared.export(metrics, done),
    forceFlush: () => shared.forceFlush(),
    shutdown: () => Promise.resolve(),
    ...(shared.selectAggregationTemporality
      ? { selectAggregationTemporality: shared.selectAggregationTemporality.bind(shared) }
      : {}),
  };
  return new pipelines.sdk.metrics.PeriodicExportingMetricReader({ exporter, exportIntervalMillis: intervalMs });
}

/** The resource attributes OpenTelemetry can carry (kvlists are left out). */
function attributesOf(resource: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(resource)) if (isAttributeValue(value)) attributes[key] = value;
  return attributes;
}

function isAttributeValue(value: unknown): value is AttributeValue {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  return (
    Array.isArray(value) &&
    value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item))
  );
}
