import { context, diag } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolLoopSpanProcessor, traceRun, traceToolCall, wrapExporter } from '../../src/index.js';
import { installContextManager, LOW_THRESHOLDS, recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

// Misconfigurations that silently disable detection are told once each through diag.

afterEach(() => {
  resetOtelGlobals();
  diag.disable();
});

async function provider(order: 'first' | 'after-exporter' | 'after-wrapped-exporter') {
  const processor = await ToolLoopSpanProcessor.create({ config: LOW_THRESHOLDS });
  const exporter = new InMemorySpanExporter();
  const exporting = new SimpleSpanProcessor(
    order === 'after-wrapped-exporter' ? wrapExporter(exporter, processor) : exporter,
  );
  const spanProcessors = order === 'first' ? [processor, exporting] : [exporting, processor];
  return new BasicTracerProvider({ spanProcessors }).getTracer('checks');
}

const calls = async (tracer: ReturnType<BasicTracerProvider['getTracer']>, n = 3) => {
  for (let i = 0; i < n; i += 1) await traceToolCall(tracer, { name: 'lookup', args: { id: 1 } }, () => 'same');
};

describe('pipeline checks', () => {
  it('no context manager: told once, and the standalone tool spans too', async () => {
    context.disable();
    const logger = recordDiag();
    await calls(await provider('first'));
    expect(logger.matching('no OpenTelemetry context manager')).toHaveLength(1);
    expect(logger.matching('tool spans start their own traces')).toHaveLength(1);
  });

  it('the processor after an exporting processor: told once, unless that exporter is wrapped', async () => {
    installContextManager();
    const logger = recordDiag();
    const tracer = await provider('after-exporter');
    await traceRun(tracer, { runId: 'r' }, () => calls(tracer));
    expect(logger.matching('runs after an exporting span processor')).toHaveLength(1);
    const wrapped = await provider('after-wrapped-exporter');
    await traceRun(wrapped, { runId: 'r2' }, () => calls(wrapped));
    expect(logger.matching('runs after an exporting span processor')).toHaveLength(1);
  });

  it('a well-formed pipeline says nothing', async () => {
    installContextManager();
    const logger = recordDiag();
    const tracer = await provider('first');
    await traceRun(tracer, { runId: 'r' }, () => calls(tracer));
    // Only OpenClaw's own loop-warning log lines (the three calls are identical).
    expect(logger.at('warn').filter((line) => !line.includes('Loop warning'))).toEqual([]);
  });
});
