import { context, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanLimits,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  ToolLoopSpanProcessor,
  wrapExporter,
  type LoopAbortEvent,
  type LoopEvent,
  type ToolLoopSpanProcessorOptions,
} from 'tool-loop-guard';
import { SpanRecorder } from './span-recorder.js';

/** Everything a framework test observes: the guard's callbacks and what was exported. */
export interface GuardHarness {
  readonly processor: ToolLoopSpanProcessor;
  readonly provider: BasicTracerProvider;
  readonly exporter: InMemorySpanExporter;
  readonly recorder: SpanRecorder;
  readonly events: LoopEvent[];
  readonly aborts: LoopAbortEvent[];
  exported(): ReadableSpan[];
}

/** Registers the async context manager every recipe requires; returns the undo for afterAll. */
export function useAsyncContext(): () => void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return () => context.disable();
}

/** The guard with OpenClaw's defaults switched on, as the recipes configure it. */
export async function createGuard(
  events: LoopEvent[],
  aborts: LoopAbortEvent[],
  options: ToolLoopSpanProcessorOptions = {},
): Promise<ToolLoopSpanProcessor> {
  return ToolLoopSpanProcessor.create({
    config: { tools: { loopDetection: { enabled: true } } },
    abortOnCritical: true,
    onLoopEvent: (event) => events.push(event),
    onAbort: (event) => aborts.push(event),
    ...options,
  });
}

/**
 * A provider with the guard first, a lifecycle recorder, and an in-memory exporter last (the
 * order the docs prescribe: the guard before any exporting processor). `spanLimits`: the
 * provider's (default the SDK's).
 */
export async function guardHarness(
  options: ToolLoopSpanProcessorOptions = {},
  spanLimits?: SpanLimits,
): Promise<GuardHarness> {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const processor = await createGuard(events, aborts, options);
  const exporter = new InMemorySpanExporter();
  const recorder = new SpanRecorder();
  const spanProcessors: SpanProcessor[] = [processor, recorder, new SimpleSpanProcessor(exporter)];
  const provider = new BasicTracerProvider({ spanProcessors, spanLimits });
  return { processor, provider, exporter, recorder, events, aborts, exported: () => exporter.getFinishedSpans() };
}

/**
 * One guard for a whole test file, for frameworks that build their tracer provider once per
 * process: created in `beforeAll` (register this first, so that the file's own `beforeAll` can
 * hand its processors to the framework), with an in-memory exporter behind `wrapExporter`, and the
 * records cleared before each test.
 */
export function fileGuard(options: ToolLoopSpanProcessorOptions = {}) {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const exporter = new InMemorySpanExporter();
  let guard: ToolLoopSpanProcessor | undefined;
  beforeAll(async () => {
    guard = await createGuard(events, aborts, options);
  });
  beforeEach(() => {
    events.length = 0;
    aborts.length = 0;
    exporter.reset();
  });
  const created = (): ToolLoopSpanProcessor => {
    if (!guard) throw new Error('fileGuard: the guard is created in beforeAll');
    return guard;
  };
  return {
    guard: created,
    /** The guard, then the exporting processor with its exporter wrapped (SDKs without `onEnding`). */
    processors: (): SpanProcessor[] => [created(), new SimpleSpanProcessor(wrapExporter(exporter, created()))],
    /** What a variant run reports as its harness. */
    observed: { events, exported: () => exporter.getFinishedSpans() } satisfies Pick<
      GuardHarness,
      'events' | 'exported'
    >,
  };
}

/**
 * The setup of a file whose runs go through an instrumentation installed once per process (the
 * LangChain callback instrumentations patch `CallbackManager` globally): the async context, the
 * instrumentation installed before the tests, and a fresh guard harness per run whose provider
 * the instrumentation is pointed at, shut down after each test.
 */
export function instrumentedHarnesses(
  instrumentation: { setTracerProvider(provider: TracerProvider): void },
  install: () => void,
): (options?: ToolLoopSpanProcessorOptions) => Promise<GuardHarness> {
  const harnesses: GuardHarness[] = [];
  afterAll(useAsyncContext());
  beforeAll(install);
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
  });
  return async (options = {}) => {
    const harness = await guardHarness(options);
    instrumentation.setTracerProvider(harness.provider);
    harnesses.push(harness);
    return harness;
  };
}
