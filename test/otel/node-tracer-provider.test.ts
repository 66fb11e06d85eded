import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolLoopBlockedError, ToolLoopSpanProcessor, traceRun, traceToolCall } from '../../src/index.js';
import * as sc from '../../src/semconv.js';

const critical = (count: number) =>
  `CRITICAL: Called read with identical arguments and identical outcomes ${count} times. Session execution blocked to prevent runaway loops.`;

describe('with NodeTracerProvider (the README setup)', () => {
  afterAll(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('register() supplies the context manager: a loop in a run is warned, then blocked before it runs', async () => {
    const processor = await ToolLoopSpanProcessor.create({
      config: { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5 } } },
    });
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
    provider.register();
    const tracer = trace.getTracer('node-provider-test');

    let executed = 0;
    const results: unknown[] = [];
    const run = traceRun(tracer, { runId: 'node-run', agentId: 'coder' }, async () => {
      for (let i = 0; i < 7; i += 1) {
        results.push(
          await traceToolCall(tracer, { name: 'read', args: { path: 'a.txt' } }, () => ((executed += 1), 'same text')),
        );
      }
    });
    // The first critical is the run's one recovery turn; the second ends the run.
    await expect(run).rejects.toBeInstanceOf(ToolLoopBlockedError);

    expect(executed).toBe(5);
    expect(results[5]).toMatchObject({ details: { reason: critical(5), intervention: { stage: 'recovery' } } });
    expect(results.at(-1)).toMatchObject({ details: { reason: critical(6) }, terminate: true });
    const names = exporter.getFinishedSpans().flatMap((span) => span.events.map((event) => event.name));
    expect(names.filter((name) => name === sc.EVENT_TOOL_LOOP_WARNING)).toHaveLength(1);
    expect(names.filter((name) => name === sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(2);
    expect(processor.getStats().liveRuns).toBe(0);
    await provider.shutdown();
  });
});
