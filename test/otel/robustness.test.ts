/**
 * Acceptance: the processor never throws into the host — throwing user callbacks
 * are caught and reported through `diag` while detection goes on — and `abortOnCritical`
 * aborts the run's signal with a `ToolLoopBlockedError`.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { CompactionLoopPersistedError, ToolLoopBlockedError, ToolLoopSpanProcessor } from '../../src/index.js';
import {
  C0,
  compactionRetrySpan,
  createOtelHarness,
  R,
  recordDiag,
  resetOtelGlobals,
  sc,
  spanEvents,
  startRunSpan,
  toolCall,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

const READ = { tool: 'read', args: { path: '/same.txt' } };
const SAME = { result: R('same output', { ok: true }) };

describe('callbacks that throw', () => {
  it('a throwing onLoopEvent does not reach the host: every event is still added, later detections continue, and diag logs the error', async () => {
    const diagLog = recordDiag();
    let calls = 0;
    const h = await createOtelHarness({
      config: C0,
      onLoopEvent: () => {
        calls += 1;
        throw new Error('subscriber exploded');
      },
    });
    const root = startRunSpan(h.tracer, { runId: 'run-throw' });
    const spans = [];
    for (let i = 0; i < 22; i += 1) {
      // Any throw out of a processor hook would surface here, from start/end.
      spans.push(toolCall(h.tracer, { ...READ, parent: root }, SAME));
    }
    root.end();
    expect(calls).toBe(3); // warning at 10, blocks at 20 and 21
    expect(spanEvents(spans[10], sc.EVENT_TOOL_LOOP_WARNING)).toHaveLength(1);
    expect(spanEvents(spans[20], sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    expect(spanEvents(spans[21], sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    const errors = diagLog
      .at('error')
      .filter((line) => line.includes('onLoopEvent') && line.includes('subscriber exploded'));
    expect(errors).toHaveLength(3);
    expect(h.finished().filter((span) => span.name === 'execute_tool read')).toHaveLength(22);
  });

  it('a throwing onAbort does not reach the host: the abort event is added, the run signal is aborted, and diag logs the error', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({
      config: {},
      onAbort: () => {
        throw new TypeError('abort subscriber exploded');
      },
    });
    const root = startRunSpan(h.tracer, { runId: 'run-abort-throw' });
    const signal = h.processor.runSignal('run-abort-throw');
    compactionRetrySpan(h.tracer, root);
    const spans = [0, 1, 2].map(() =>
      toolCall(h.tracer, { tool: 'gateway', args: { action: 'lookup' }, parent: root }, { result: R('r1') }),
    );
    root.end();
    expect(spanEvents(spans[2], sc.EVENT_TOOL_LOOP_ABORTED)).toHaveLength(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(CompactionLoopPersistedError);
    expect(h.abortEvents).toHaveLength(1); // the harness recorder runs before the throwing callback
    expect(
      diagLog.at('error').filter((line) => line.includes('onAbort') && line.includes('abort subscriber exploded')),
    ).toHaveLength(1);
  });

  it('a callback that throws a non-Error value is also contained', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({
      config: { tools: { loopDetection: { enabled: true, warningThreshold: 1, criticalThreshold: 2 } } },
      onLoopEvent: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw 'a bare string';
      },
    });
    const root = startRunSpan(h.tracer, { runId: 'run-string-throw' });
    expect(() => {
      for (let i = 0; i < 4; i += 1) toolCall(h.tracer, { ...READ, parent: root }, SAME);
    }).not.toThrow();
    root.end();
    expect(h.loopEvents.map((event) => `${event.level}:${event.count}`)).toEqual([
      'warning:1',
      'critical:2',
      'critical:3',
    ]);
    expect(diagLog.at('error').filter((line) => line.includes('a bare string'))).toHaveLength(3);
  });
});

describe('hooks guard their bodies', () => {
  it('a bug in a span adapter is reported through diag and never thrown into span start or end', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({
      config: C0,
      adapters: [
        {
          name: 'exploding',
          matchStart: () => {
            throw new Error('adapter bug at start');
          },
          readEnd: () => {
            throw new Error('adapter bug at end');
          },
        },
      ],
    });
    const root = startRunSpan(h.tracer, { runId: 'run-adapter-bug' });
    expect(() => toolCall(h.tracer, { ...READ, parent: root }, SAME)).not.toThrow();
    expect(() => root.end()).not.toThrow();
    expect(
      diagLog.at('error').some((line) => line.includes('onStart failed') && line.includes('adapter bug at start')),
    ).toBe(true);
    expect(h.finished()).toHaveLength(2);
  });

  it('arguments that are not valid JSON are hashed as plain text: identical text still counts as a repeat', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root = startRunSpan(h.tracer, { runId: 'run-bad-json' });
    const spans = [];
    for (let i = 0; i < 11; i += 1)
      spans.push(toolCall(h.tracer, { tool: 'read', args: '{"path": "/unterminated', parent: root }));
    root.end();
    expect(spanEvents(spans[10], sc.EVENT_TOOL_LOOP_WARNING)).toHaveLength(1);
    expect(spans.slice(0, 10).flatMap((span) => spanEvents(span))).toEqual([]);
  });
});

describe('abortOnCritical', () => {
  it('aborts processor.runSignal(runId) with a ToolLoopBlockedError on the first critical verdict', async () => {
    const h = await createOtelHarness({ config: C0, abortOnCritical: true });
    const root = startRunSpan(h.tracer, { runId: 'run-critical' });
    const signal = h.processor.runSignal('run-critical');
    const other = h.processor.runSignal('run-other');
    for (let i = 0; i < 20; i += 1) toolCall(h.tracer, { ...READ, parent: root }, SAME);
    expect(signal.aborted).toBe(false); // warnings do not abort
    toolCall(h.tracer, { ...READ, parent: root }, SAME);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    expect(signal.reason).toMatchObject({
      name: 'ToolLoopBlockedError',
      code: 'tool_loop_blocked',
      detector: 'generic_repeat',
      count: 20,
      toolName: 'read',
      message:
        'CRITICAL: Called read with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
    });
    expect(other.aborted).toBe(false);
    root.end();
  });

  it('without abortOnCritical a critical verdict leaves the run signal alone', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root = startRunSpan(h.tracer, { runId: 'run-no-abort' });
    const signal = h.processor.runSignal('run-no-abort');
    for (let i = 0; i < 22; i += 1) toolCall(h.tracer, { ...READ, parent: root }, SAME);
    expect(h.loopEvents.filter((event) => event.level === 'critical')).toHaveLength(2);
    expect(signal.aborted).toBe(false);
    root.end();
  });

  it('a signal requested after the critical already happened is returned aborted', async () => {
    const h = await createOtelHarness({ config: C0, abortOnCritical: true });
    const root = startRunSpan(h.tracer, { runId: 'run-late-signal' });
    for (let i = 0; i < 21; i += 1) toolCall(h.tracer, { ...READ, parent: root }, SAME);
    const signal = h.processor.runSignal('run-late-signal');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    root.end();
  });
});

describe('SDKs without onEnding', () => {
  it('records outcomes in onEnd, so start verdicts (warnings and blocks) still come from the recorded history', async () => {
    const processor = await ToolLoopSpanProcessor.create({ config: C0 });
    // What an SDK older than 2.3 sees: the same object without the onEnding hook.
    const legacy: SpanProcessor = {
      onStart: (span, ctx) => processor.onStart(span, ctx),
      onEnd: (span) => processor.onEnd(span),
      forceFlush: () => processor.forceFlush(),
      shutdown: () => processor.shutdown(),
    };
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [legacy, new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('legacy');
    const root = startRunSpan(tracer, { runId: 'run-legacy' });
    const spans = [];
    for (let i = 0; i < 21; i += 1) spans.push(toolCall(tracer, { ...READ, parent: root }, SAME));
    root.end();
    expect(spanEvents(spans[10], sc.EVENT_TOOL_LOOP_WARNING)).toHaveLength(1);
    // The block needs 20 recorded identical outcomes: only possible if onEnd recorded them.
    expect(spanEvents(spans[20], sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    expect(processor.getStats().liveRuns).toBe(0);
  });
});

describe('export failures', () => {
  it('detection does not depend on export: an OTLP exporter pointed at a closed port changes nothing', async () => {
    recordDiag(); // keep the exporter's connection errors off the console
    const failing = new BatchSpanProcessor(
      new OTLPTraceExporter({ url: 'http://127.0.0.1:9/v1/traces', timeoutMillis: 500 }),
      {
        scheduledDelayMillis: 1,
      },
    );
    const h = await createOtelHarness({ config: C0, extraProcessors: [failing] });
    const root = startRunSpan(h.tracer, { runId: 'run-export-fails' });
    for (let i = 0; i < 21; i += 1) toolCall(h.tracer, { ...READ, parent: root }, SAME);
    root.end();
    await h.provider.forceFlush().catch(() => undefined);
    expect(h.loopEvents.map((event) => `${event.level}:${event.detector}:${event.count}`)).toEqual([
      'warning:generic_repeat:10',
      'critical:generic_repeat:20',
    ]);
    await h.shutdown().catch(() => undefined);
  });
});
