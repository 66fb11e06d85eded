/**
 * A `serve` service on 127.0.0.1 (free ports) exporting to an OTLP/HTTP JSON stub, and an agent
 * side made of the real OpenTelemetry SDK: a tracer provider whose spans go to the service
 * through a real OTLP exporter.
 */
import { ROOT_CONTEXT, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { AgentConfigResolver } from '../../../src/config/agent-config-resolver.js';
import type { ToolLoopGuardConfig } from '../../../src/config/types.js';
import { createDigester } from '../../../src/engine/hashing/digest.js';
import { resolveProcessorOptions, type ToolLoopSpanProcessorOptions } from '../../../src/otel/options.js';
import { LoopGuardService } from '../../../src/cli/serve/loop-guard-service.js';
import { ServeLog } from '../../../src/cli/serve/serve-log.js';
import type { ServeSettings } from '../../../src/cli/serve/serve-options.js';
import * as sc from '../../../src/semconv.js';
import { otlpAttributes, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from '../../helpers/otlp-receiver.js';

/** W2 / C3: a warning on the 3rd identical call, a block on the 4th. */
export const W2C3: ToolLoopGuardConfig = {
  tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } },
};

export interface Served {
  readonly service: LoopGuardService;
  /** Where evidence spans and metrics go. */
  readonly sink: OtlpReceiver;
  /** The service's log lines. */
  readonly lines: string[];
  close(): Promise<void>;
}

export const TEST_SETTINGS: ServeSettings = {
  grpc: { host: '127.0.0.1', port: 0 },
  http: { host: '127.0.0.1', port: 0 },
  exportUrl: null,
  graceMs: 200,
  maxWaitMs: 30_000,
  maxBufferedSpans: 10_000,
  maxTraceSpans: 10_000,
  maxRequestBytes: 1024 * 1024,
  maxProcesses: 100,
  metricIntervalMs: 60_000,
  reportIntervalMs: 0,
  logLevel: 'debug',
};

/** Starts a service with `settings` over {@link TEST_SETTINGS}, exporting to a fresh stub. */
export async function serve(
  settings: Partial<ServeSettings> = {},
  processor: ToolLoopSpanProcessorOptions = {},
  config: ToolLoopGuardConfig = W2C3,
): Promise<Served> {
  const sink = await startOtlpReceiver();
  const lines: string[] = [];
  const log = new ServeLog((line) => lines.push(line), 'debug');
  const service = await LoopGuardService.start({
    settings: { ...TEST_SETTINGS, exportUrl: `http://127.0.0.1:${sink.port}`, ...settings },
    processor: resolveProcessorOptions(processor, {}, log),
    resolver: new AgentConfigResolver(config, log),
    digester: await createDigester(),
    log,
  });
  return {
    service,
    sink,
    lines,
    close: async () => {
      await service.stop();
      await sink.close();
    },
  };
}

/**
 * An agent process: the real SDK, exporting each span as it ends through `exporter`. Its spans
 * are 5 ms apart, as an agent's calls are (the JS SDK's start times have millisecond precision:
 * calls closer than that would overlap in the recorded times).
 */
export function agent(exporter: SpanExporter, service = 'py-agent') {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'service.instance.id': 'agent-1' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('agent');
  let now = Date.now();
  const tick = () => (now += 5);
  return {
    provider,
    /** A span under `parent` (a root without). */
    start(name: string, attributes: Attributes, parent?: Span): Span {
      const context: Context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      return tracer.startSpan(name, { attributes, startTime: tick() }, context);
    },
    end(span: Span): void {
      span.end(tick());
    },
    /** A GenAI tool call of `tool` with these arguments and result, under `parent`. */
    call(parent: Span, tool: string, args: unknown, result: string): Span {
      const span = this.start(
        `execute_tool ${tool}`,
        {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
          [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
        },
        parent,
      );
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, result);
      this.end(span);
      return span;
    },
    shutdown: () => provider.shutdown(),
  };
}

/** Waits until `check` returns a value (not `undefined`), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The evidence spans the sink received, with their resource's attributes. */
export function evidenceSpans(sink: OtlpReceiver): Array<OtlpSpan & { resource: Record<string, unknown> }> {
  return sink.requests.flatMap((request) =>
    (request.resourceSpans ?? []).flatMap((resourceSpans) =>
      (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
        (scope.spans ?? [])
          .filter((span) => span.name === 'run_guardrail tool-loop-guard')
          .map((span) => ({ ...span, resource: otlpAttributes(resourceSpans.resource?.attributes) })),
      ),
    ),
  );
}

/** The data points of one metric the sink received: their attributes, value and resource. */
export function metricPoints(
  sink: OtlpReceiver,
  name: string,
): Array<{ attributes: Record<string, unknown>; value: number; resource: Record<string, unknown> }> {
  return sink.metricRequests.flatMap((request) =>
    (request.resourceMetrics ?? []).flatMap((resourceMetrics) =>
      (resourceMetrics.scopeMetrics ?? []).flatMap((scope) =>
        (scope.metrics ?? [])
          .filter((metric) => metric.name === name)
          .flatMap((metric) => metric.sum?.dataPoints ?? metric.gauge?.dataPoints ?? [])
          .map((point) => ({
            attributes: otlpAttributes(point.attributes),
            value: Number(point.asInt ?? point.asDouble ?? 0),
            resource: otlpAttributes(resourceMetrics.resource?.attributes),
          })),
      ),
    ),
  );
}
