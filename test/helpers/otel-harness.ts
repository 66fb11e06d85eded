/**
 * Shared helpers for the span-processor acceptance tests (test/otel, test/instrument).
 *
 * Everything here is a thin wrapper over the public OpenTelemetry API and the real SDK
 * (`BasicTracerProvider`, `InMemorySpanExporter`, `SimpleSpanProcessor`,
 * `AsyncLocalStorageContextManager`): spans are described with the attributes of the span contract (README)
 * only, so a test written with these helpers is a test of the processor as any
 * instrumentation would drive it. Nothing of ours is mocked.
 */
import {
  context,
  diag,
  DiagLogLevel,
  metrics,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type DiagLogger,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-base';
import {
  ToolLoopSpanProcessor,
  type LoopAbortEvent,
  type LoopEvent,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';
import * as sc from '../../src/semconv.js';

export { sc };

// ── Provider + processor ─────────────────────────────────────────────────────

/** A real provider with our processor first and an in-memory exporter behind it. */
export interface OtelHarness {
  readonly provider: BasicTracerProvider;
  readonly exporter: InMemorySpanExporter;
  readonly processor: ToolLoopSpanProcessor;
  readonly tracer: Tracer;
  /** Every `onLoopEvent` call, in order. */
  readonly loopEvents: LoopEvent[];
  /** Every `onAbort` call, in order. */
  readonly abortEvents: LoopAbortEvent[];
  /** Spans exported so far (ended spans, in end order). */
  finished(): ReadableSpan[];
  /** Exported span events named `name`, with the span each is on, in span-end order. */
  events(name: string): Array<{ span: ReadableSpan; event: TimedEvent }>;
  /** Flushes and shuts the provider down. */
  shutdown(): Promise<void>;
}

export interface HarnessOptions extends ToolLoopSpanProcessorOptions {
  /** Install a real `AsyncLocalStorageContextManager` as the global context manager. */
  contextManager?: boolean;
  /** Extra span processors placed after ours and the in-memory exporter. */
  extraProcessors?: SpanProcessor[];
}

/**
 * Builds `BasicTracerProvider({ spanProcessors: [processor, SimpleSpanProcessor(exporter)] })`.
 * `onLoopEvent` / `onAbort` given in `options` are still called; the harness records every
 * event as well (unless the user callback throws first, which the processor must swallow).
 */
export async function createOtelHarness(options: HarnessOptions = {}): Promise<OtelHarness> {
  const { contextManager, extraProcessors, onLoopEvent, onAbort, ...processorOptions } = options;
  if (contextManager) installContextManager();
  const loopEvents: LoopEvent[] = [];
  const abortEvents: LoopAbortEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    ...processorOptions,
    onLoopEvent: (event) => {
      loopEvents.push(event);
      onLoopEvent?.(event);
    },
    onAbort: (event) => {
      abortEvents.push(event);
      onAbort?.(event);
    },
  });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [processor, new SimpleSpanProcessor(exporter), ...(extraProcessors ?? [])],
  });
  const tracer = provider.getTracer('tool-loop-guard-tests');
  const finished = () => exporter.getFinishedSpans();
  return {
    provider,
    exporter,
    processor,
    tracer,
    loopEvents,
    abortEvents,
    finished,
    events: (name) => eventsNamed(finished(), name),
    shutdown: () => provider.shutdown(),
  };
}

/** Installs a real `AsyncLocalStorageContextManager` globally (undo with {@link resetOtelGlobals}). */
export function installContextManager(): void {
  context.disable();
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
}

/** Unregisters every OTel global a test may have set (context manager, providers, diag). */
export function resetOtelGlobals(): void {
  context.disable();
  trace.disable();
  metrics.disable();
  propagation.disable();
  diag.disable();
}

// ── Raw spans (attributes only) ───────────────────────────────────

/** A parent for a new span: a span, a context, or nothing (root, or the active context). */
export type Parent = Span | Context | undefined;

function parentContext(parent: Parent): Context {
  if (parent === undefined) return context.active();
  if (isSpan(parent)) return trace.setSpan(context.active(), parent);
  return parent;
}

function isSpan(value: Span | Context): value is Span {
  return typeof (value as Span).spanContext === 'function';
}

/** JSON text for an attribute: strings pass through as they are, other values are JSON-encoded. */
export function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface ToolSpanInput {
  /** `gen_ai.tool.name`. */
  tool: string;
  /** `gen_ai.tool.call.arguments` at start (JSON-encoded unless already a string); omit to set none. */
  args?: unknown;
  /** `gen_ai.tool.call.id`. */
  callId?: string;
  /** `tool_loop.run_id` on the tool span itself. */
  runId?: string;
  /** `gen_ai.agent.id` on the tool span itself. */
  agentId?: string;
  /** Parent span or context. */
  parent?: Parent;
  /** Any other start attributes. */
  attributes?: Attributes;
  /** Span name; default `execute_tool <tool>`. */
  name?: string;
}

/** Starts an `execute_tool` span described by attributes only. */
export function startToolSpan(tracer: Tracer, input: ToolSpanInput): Span {
  const attributes: Attributes = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: input.tool,
    ...input.attributes,
  };
  if (input.args !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = jsonText(input.args);
  if (input.callId !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = input.callId;
  if (input.runId !== undefined) attributes[sc.ATTR_TOOL_LOOP_RUN_ID] = input.runId;
  if (input.agentId !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_ID] = input.agentId;
  return tracer.startSpan(input.name ?? `execute_tool ${input.tool}`, { attributes }, parentContext(input.parent));
}

/** How a tool span ends: with a result (JSON text), with an error status, or with nothing. */
export type ToolEnd = { result: unknown } | { error: string } | { exception: string } | 'none';

/**
 * Ends a tool span: `{result}` sets `gen_ai.tool.call.result` before end; `{error}` sets
 * status ERROR with that message; `{exception}` records an `exception` event and sets ERROR
 * without a message; `'none'` ends it bare (a call with no outcome).
 */
export function endToolSpan(span: Span, end: ToolEnd): void {
  if (end !== 'none') {
    if ('result' in end) span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, jsonText(end.result));
    else if ('error' in end) span.setStatus({ code: SpanStatusCode.ERROR, message: end.error });
    else {
      span.recordException(new Error(end.exception));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** Starts and ends one tool span; returns it (ended). */
export function toolCall(tracer: Tracer, input: ToolSpanInput, end: ToolEnd = 'none'): Span {
  const span = startToolSpan(tracer, input);
  endToolSpan(span, end);
  return span;
}

export interface RunSpanInput {
  /** `tool_loop.run_id`. */
  runId?: string;
  /** `gen_ai.agent.id`. */
  agentId?: string;
  parent?: Parent;
  name?: string;
  attributes?: Attributes;
}

/** Starts a run (or any enclosing) span carrying `tool_loop.run_id` / `gen_ai.agent.id`. */
export function startRunSpan(tracer: Tracer, input: RunSpanInput = {}): Span {
  const attributes: Attributes = { ...input.attributes };
  if (input.runId !== undefined) attributes[sc.ATTR_TOOL_LOOP_RUN_ID] = input.runId;
  if (input.agentId !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_ID] = input.agentId;
  return tracer.startSpan(input.name ?? 'invoke_agent', { attributes }, parentContext(input.parent));
}

/** Records a `compaction.retry` = true span under `parent` (arms the guard for its run). */
export function compactionRetrySpan(tracer: Tracer, parent?: Parent, attributes: Attributes = {}): Span {
  const span = tracer.startSpan(
    sc.ATTR_COMPACTION_RETRY,
    { attributes: { [sc.ATTR_COMPACTION_RETRY]: true, ...attributes } },
    parentContext(parent),
  );
  span.end();
  return span;
}

// ── Reading spans ────────────────────────────────────────────────────────────

/** Something with events (an SDK span, live or ended). */
interface HasEvents {
  readonly events: TimedEvent[];
}

/** The events of `span` named `name`. Works on a live SDK span too (cast from the API type). */
export function spanEvents(span: Span | ReadableSpan, name?: string): TimedEvent[] {
  const events = (span as unknown as HasEvents).events ?? [];
  return name === undefined ? [...events] : events.filter((event) => event.name === name);
}

/** The attributes of an SDK span (live or ended). */
export function spanAttributes(span: Span | ReadableSpan): Attributes {
  return (span as unknown as ReadableSpan).attributes;
}

/** Events named `name` across `spans`, with the span each is on. */
export function eventsNamed(
  spans: readonly ReadableSpan[],
  name: string,
): Array<{ span: ReadableSpan; event: TimedEvent }> {
  const found: Array<{ span: ReadableSpan; event: TimedEvent }> = [];
  for (const span of spans) for (const event of span.events) if (event.name === name) found.push({ span, event });
  return found;
}

/** Every loop event name of the span contract. */
export const LOOP_EVENT_NAMES = [
  sc.EVENT_TOOL_LOOP_WARNING,
  sc.EVENT_TOOL_LOOP_BLOCKED,
  sc.EVENT_TOOL_LOOP_ABORTED,
  sc.EVENT_TOOL_LOOP_GUARD_ARMED,
] as const;

/** All loop events (any of the four names) on a span, as `[name, attributes]`. */
export function loopEventsOf(span: Span | ReadableSpan): Array<{ name: string; attributes: Attributes }> {
  return spanEvents(span)
    .filter((event) => (LOOP_EVENT_NAMES as readonly string[]).includes(event.name))
    .map((event) => ({ name: event.name, attributes: event.attributes ?? {} }));
}

/** One attribute of an event. */
export function attr(event: TimedEvent | { attributes?: Attributes }, key: string): AttributeValue | undefined {
  return event.attributes?.[key];
}

// ── Results ──────────────────────────────────────────────────────────────────

/** `R(text, details)` of the scenarios: an OpenClaw-shaped tool result. */
export function R(
  text: string,
  details?: unknown,
): { content: Array<{ type: 'text'; text: string }>; details?: unknown } {
  return details === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], details };
}

/** `C0` of the scenarios as an OpenClaw-shaped config. */
export const C0 = Object.freeze({ tools: { loopDetection: { enabled: true } } });

/** Warning at 2 calls, critical at 3: what most processor tests need to see both levels soon. */
export const W2_C3 = Object.freeze({
  tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } },
});

/** Small thresholds (W 2, C 4, B 6) so that adapter tests reach every level in a few calls. */
export const LOW_THRESHOLDS = Object.freeze({
  tools: {
    loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 4, globalCircuitBreakerThreshold: 6 },
  },
});

// ── diag ─────────────────────────────────────────────────────────────────────

export interface DiagLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug' | 'verbose';
  /** Every argument joined by a space (the component namespace comes first). */
  readonly text: string;
}

/** A `DiagLogger` that keeps every line. Install with {@link recordDiag}. */
export class RecordingDiagLogger implements DiagLogger {
  readonly lines: DiagLine[] = [];
  private push(level: DiagLine['level'], args: unknown[]): void {
    this.lines.push({ level, text: args.map((arg) => (typeof arg === 'string' ? arg : String(arg))).join(' ') });
  }
  error(...args: unknown[]): void {
    this.push('error', args);
  }
  warn(...args: unknown[]): void {
    this.push('warn', args);
  }
  info(...args: unknown[]): void {
    this.push('info', args);
  }
  debug(...args: unknown[]): void {
    this.push('debug', args);
  }
  verbose(...args: unknown[]): void {
    this.push('verbose', args);
  }
  /** Lines at one level. */
  at(level: DiagLine['level']): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.text);
  }
  /** Lines (any level) that contain `fragment`. */
  matching(fragment: string): DiagLine[] {
    return this.lines.filter((line) => line.text.includes(fragment));
  }
}

/** Installs a recording logger as the global diag logger at level ALL. */
export function recordDiag(): RecordingDiagLogger {
  const logger = new RecordingDiagLogger();
  diag.setLogger(logger, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
  return logger;
}
