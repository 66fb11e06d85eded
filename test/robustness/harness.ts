/**
 * A real provider with the processor first and an in-memory exporter behind it, for the
 * robustness suite. Only the package's public entry and the OpenTelemetry SDK are used, so
 * these tests hold whatever the internal layout is.
 */
import {
  context,
  diag,
  DiagLogLevel,
  metrics,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  semconv as sc,
  ToolLoopSpanProcessor,
  type LoopAbortEvent,
  type LoopEvent,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';

export { sc };

/** Small thresholds so a loop trips in a handful of calls: warning 2, critical 3, breaker 5. */
export const SMALL = {
  tools: {
    loopDetection: {
      enabled: true,
      warningThreshold: 2,
      criticalThreshold: 3,
      globalCircuitBreakerThreshold: 5,
      historySize: 10,
    },
  },
};

export interface World {
  readonly processor: ToolLoopSpanProcessor;
  readonly provider: BasicTracerProvider;
  readonly exporter: InMemorySpanExporter;
  readonly tracer: Tracer;
  readonly loopEvents: LoopEvent[];
  readonly aborts: LoopAbortEvent[];
  readonly diagLines: string[];
  shutdown(): Promise<void>;
}

/** Builds a world; `onLoopEvent`/`onAbort` are recorded before any given callback runs. */
export async function createWorld(options: ToolLoopSpanProcessorOptions = {}): Promise<World> {
  const diagLines: string[] = [];
  const log = (...args: unknown[]) => diagLines.push(args.map(String).join(' '));
  diag.setLogger(
    { error: log, warn: log, info: log, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.INFO, suppressOverrideMessage: true },
  );
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const loopEvents: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    ...options,
    onLoopEvent: (event) => {
      loopEvents.push(event);
      options.onLoopEvent?.(event);
    },
    onAbort: (event) => {
      aborts.push(event);
      options.onAbort?.(event);
    },
  });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  return {
    processor,
    provider,
    exporter,
    tracer: provider.getTracer('robustness'),
    loopEvents,
    aborts,
    diagLines,
    shutdown: () => provider.shutdown(),
  };
}

/** Unregisters every OTel global a test may have set. */
export function resetGlobals(): void {
  context.disable();
  trace.disable();
  metrics.disable();
  propagation.disable();
  diag.disable();
}

/** A context whose parent is only a span context (as after propagation), not a live span. */
export function remoteParent(traceId: string, spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: 1, isRemote: true });
}

/** A root span that opens a run (`tool_loop.run_id`). */
export function runRoot(tracer: Tracer, runId: string, parent: Context = ROOT_CONTEXT): Span {
  return tracer.startSpan('agent run', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } }, parent);
}

export interface ToolCallInput {
  tool: string;
  args?: string;
  result?: string;
  argsHash?: string;
  resultHash?: string;
  parent: Context | Span;
  name?: string;
  attributes?: Record<string, string>;
}

/** Starts and ends one GenAI `execute_tool` span; returns it with the verdict it had at start. */
export function toolCall(tracer: Tracer, input: ToolCallInput): { span: Span; verdictAtStart: unknown } {
  const parent = 'spanContext' in input.parent ? trace.setSpan(ROOT_CONTEXT, input.parent) : input.parent;
  const span = tracer.startSpan(
    input.name ?? `execute_tool ${input.tool}`,
    {
      attributes: {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
        [sc.ATTR_GEN_AI_TOOL_NAME]: input.tool,
        ...(input.args === undefined ? {} : { [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: input.args }),
        ...(input.argsHash === undefined ? {} : { [sc.ATTR_TOOL_LOOP_ARGS_HASH]: input.argsHash }),
        ...input.attributes,
      },
    },
    parent,
  );
  const verdictAtStart = (span as unknown as ReadableSpan).attributes[sc.ATTR_TOOL_LOOP_VERDICT];
  if (input.result !== undefined) span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, input.result);
  if (input.resultHash !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_RESULT_HASH, input.resultHash);
  span.end();
  return { span, verdictAtStart };
}

/** `n` identical read calls under `parent`; returns each call's verdict at start. */
export function repeatRead(tracer: Tracer, parent: Context | Span, n: number): unknown[] {
  const verdicts: unknown[] = [];
  for (let i = 0; i < n; i += 1)
    verdicts.push(
      toolCall(tracer, { tool: 'read', args: '{"path":"/a.txt"}', result: '"same"', parent }).verdictAtStart,
    );
  return verdicts;
}
