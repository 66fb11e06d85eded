import { context, diag } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolLoopSpanProcessor, traceRun, traceToolCall } from '../../src/index.js';
import { installContextManager, LOW_THRESHOLDS, recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

// Misconfigurations that silently disable detection are told once each through diag.

afterEach(() => {
  resetOtelGlobals();
  diag.disable();
});

async function provider(order: 'first' | 'after-exporter') {
  const processor = await ToolLoopSpanProcessor.create({ config: LOW_THRESHOLDS });
  const exporter = new InMemorySpanExporter();
  const exporting = new SimpleSpanProcessor(exporter);
  const spanProcessors = order === 'first' ? [processor, exporting] : [exporting, processor];
  return { tracer: new BasicTracerProvider({ spanProcessors }).getTracer('checks'), exporter };
}

const calls = async (tracer: ReturnType<BasicTracerProvider['getTracer']>, n = 3) => {
  for (let i = 0; i < n; i += 1) await traceToolCall(tracer, { name: 'lookup', args: { id: 1 } }, () => 'same');
};

describe('pipeline checks', () => {
  it('no context manager: told once, and the standalone tool spans too', async () => {
    context.disable();
    const logger = recordDiag();
    await calls((await provider('first')).tracer);
    expect(logger.matching('no OpenTelemetry context manager')).toHaveLength(1);
    expect(logger.matching('tool spans start their own traces')).toHaveLength(1);
  });

  it('the processor after an exporting processor: nothing to tell, its events reach that exporter', async () => {
    installContextManager();
    const logger = recordDiag();
    const { tracer, exporter } = await provider('after-exporter');
    await traceRun(tracer, { runId: 'r' }, () => calls(tracer));
    const tools = exporter.getFinishedSpans().filter((span) => span.name === 'execute_tool lookup');
    expect(tools[2].events.map((event) => event.name)).toEqual(['tool_loop.warning']);
    expect(logger.at('warn').filter((line) => !line.includes('Loop warning'))).toEqual([]);
  });

  it('a well-formed pipeline says nothing', async () => {
    installContextManager();
    const logger = recordDiag();
    const { tracer } = await provider('first');
    await traceRun(tracer, { runId: 'r' }, () => calls(tracer));
    // Only OpenClaw's own loop-warning log lines (the three calls are identical).
    expect(logger.at('warn').filter((line) => !line.includes('Loop warning'))).toEqual([]);
  });
});
