/** Providers and span-producing batches shared by the timing and memory benchmarks. */
import { ROOT_CONTEXT, SpanKind, trace, type Context, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolLoopSpanProcessor } from '../src/index.js';

/** The default profile: rolling detectors enabled, everything else default. */
const ENABLED = { tools: { loopDetection: { enabled: true } } } as const;
/** The recommended profile (`profiles/small-model.json5`). */
const SMALL_MODEL = { tools: { loopDetection: { profile: 'small-model' } } } as const;

/** The configs the bench runs ours with. */
export type BenchProfile = 'default' | 'small-model';

/**
 * A processor with ours' three hooks, each doing nothing: what the SDK's dispatch to one more
 * processor costs, the least any processor can cost.
 */
export const EMPTY_PROCESSOR: SpanProcessor = {
  onStart() {},
  onEnding() {},
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/** A tracer of a provider with these processors, in this order (none: the bare SDK, the floor). */
export function tracerWith(...processors: SpanProcessor[]): Tracer {
  return new BasicTracerProvider({ spanProcessors: processors }).getTracer('bench');
}

export async function ours(onEvent?: () => void, profile: BenchProfile = 'default'): Promise<ToolLoopSpanProcessor> {
  return ToolLoopSpanProcessor.create({ config: profile === 'default' ? ENABLED : SMALL_MODEL, onLoopEvent: onEvent });
}

/**
 * What the bench asks of another tree's processor class (`--against`): its `create`, typed only
 * as far as the bench uses it, since that tree's types are not this one's.
 */
export interface ProcessorFactory {
  create(options: { config: typeof ENABLED; onLoopEvent?: () => void }): Promise<SpanProcessor>;
}

/** {@link ours}, or with `factory` the same config and callback given to another tree's processor class. */
export async function processorOf(factory: ProcessorFactory | undefined, onEvent?: () => void): Promise<SpanProcessor> {
  return factory === undefined ? ours(onEvent) : factory.create({ config: ENABLED, onLoopEvent: onEvent });
}

/** Starts a run root span (with `tool_loop.run_id`) and returns it with its context. */
export function startRun(tracer: Tracer, runId: string): { end(): void; ctx: Context } {
  const root = tracer.startSpan(
    'invoke_agent',
    { kind: SpanKind.INTERNAL, attributes: { 'tool_loop.run_id': runId, 'gen_ai.operation.name': 'invoke_agent' } },
    ROOT_CONTEXT,
  );
  return { end: () => root.end(), ctx: trace.setSpan(ROOT_CONTEXT, root) };
}

/** One tool span: start with arguments, set the result before end, end. */
export function toolSpan(
  tracer: Tracer,
  ctx: Context,
  toolName: string,
  callId: string,
  args: string,
  result: string,
): void {
  const span = tracer.startSpan(
    `execute_tool ${toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': toolName,
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.call.arguments': args,
      },
    },
    ctx,
  );
  span.setAttribute('gen_ai.tool.call.result', result);
  span.end();
}
