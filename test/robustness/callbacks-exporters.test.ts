/**
 * User callbacks that throw or are slow, and exporters that throw or hang: detection and
 * abort still work and nothing propagates to the caller (hooks never throw into the
 * host; detection does not depend on export).
 */
import { ROOT_CONTEXT, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  traceRun,
  traceToolCall,
  ToolLoopSpanProcessor,
  type LoopAbortEvent,
  type LoopEvent,
} from '../../src/index.js';
import {
  createOtelHarness,
  recordDiag,
  resetOtelGlobals,
  sc,
  spanAttributes,
  type OtelHarness,
} from '../helpers/otel-harness.js';

const CONFIG = {
  tools: {
    loopDetection: {
      enabled: true,
      warningThreshold: 2,
      criticalThreshold: 3,
      globalCircuitBreakerThreshold: 5,
      historySize: 20,
    },
  },
};

let harness: OtelHarness | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await harness?.shutdown();
  harness = undefined;
  resetOtelGlobals();
});

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a synchronous, slow user callback
  }
}

/** Drives one run: N identical calls, then a compaction-retry and `window` identical calls. Returns start verdict levels. */
function driveLoop(
  tracer: Tracer,
  runId: string,
  calls: number,
  window: number,
): { levels: Array<string | undefined>; root: Span } {
  const root = tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  const levels: Array<string | undefined> = [];
  const call = (args: string) => {
    const span = tracer.startSpan(
      'execute_tool',
      { attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args } },
      ctx,
    );
    levels.push(spanAttributes(span)[sc.ATTR_TOOL_LOOP_VERDICT] as string | undefined);
    span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, '"same"');
    span.end();
  };
  for (let i = 0; i < calls; i += 1) call('{"path":"/loop"}');
  tracer.startSpan(sc.ATTR_COMPACTION_RETRY, { attributes: { [sc.ATTR_COMPACTION_RETRY]: true } }, ctx).end();
  for (let i = 0; i < window; i += 1) call('{"path":"/after-compaction"}');
  return { levels, root };
}

// 5 identical calls (W 2, C 3), then a compaction-retry and 3 identical calls of another signature (W 2 warns on the 3rd, which also completes the guard's window).
const EXPECTED_LEVELS = [undefined, undefined, 'warning', 'critical', 'critical', undefined, undefined, 'warning'];

class ThrowingExporter implements SpanExporter {
  calls = 0;
  export(_spans: ReadableSpan[], _done: (result: ExportResult) => void): void {
    this.calls += 1;
    throw new Error('exporter exploded');
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

class HangingExporter implements SpanExporter {
  calls = 0;
  export(_spans: ReadableSpan[], _done: (result: ExportResult) => void): void {
    this.calls += 1; // never calls back
  }
  shutdown(): Promise<void> {
    return new Promise(() => {}); // never settles either
  }
}

class FailingExporter implements SpanExporter {
  calls = 0;
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.calls += 1;
    done({ code: ExportResultCode.FAILED, error: new Error('collector down') });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function withExporter(behind: SpanProcessor) {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    config: CONFIG,
    onLoopEvent: (e) => void events.push(e),
    onAbort: (e) => void aborts.push(e),
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, behind] });
  return { processor, provider, tracer: provider.getTracer('exporters'), events, aborts };
}

describe('user callbacks', () => {
  it('callbacks that throw: detection, blocking and abort still work; nothing propagates; the failure goes to diag', async () => {
    const diagLog = recordDiag();
    harness = await createOtelHarness({
      config: CONFIG,
      contextManager: true,
      onLoopEvent: () => {
        throw new Error('onLoopEvent exploded');
      },
      onAbort: () => {
        throw new TypeError('onAbort exploded');
      },
    });
    const signal = harness.processor.runSignal('throwing-callbacks');
    const { levels } = driveLoop(harness.tracer, 'throwing-callbacks', 5, 3);
    expect(levels).toEqual(EXPECTED_LEVELS);
    expect(harness.abortEvents).toHaveLength(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(CompactionLoopPersistedError);
    expect(diagLog.matching('onLoopEvent callback threw').length).toBeGreaterThan(0);
    expect(diagLog.matching('onAbort callback threw')).toHaveLength(1);

    // Through the helpers: blocked result returned, and traceRun rejects with the abort reason.
    let executed = 0;
    const run = traceRun(harness.tracer, { runId: 'helpers-throwing' }, async () => {
      for (let i = 0; i < 4; i += 1) {
        const out = await traceToolCall(harness!.tracer, { name: 'read', args: { p: 1 } }, () => {
          executed += 1;
          return 'same';
        });
        if (i === 3) expect((out as { details: { status: string } }).details.status).toBe('blocked');
      }
      markCompactionRetry(harness!.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(harness!.tracer, { name: 'read', args: { p: 2 } }, () => 'again');
      return 'finished';
    });
    await expect(run).rejects.toBeInstanceOf(CompactionLoopPersistedError);
    expect(executed).toBe(3);
    expect(unhandled).toEqual([]);
  });

  it('callbacks that are slow (50 ms synchronous busy loop): detection and abort are still correct', async () => {
    let slowCalls = 0;
    harness = await createOtelHarness({
      config: CONFIG,
      onLoopEvent: () => {
        slowCalls += 1;
        busy(50);
      },
      onAbort: () => busy(50),
    });
    const signal = harness.processor.runSignal('slow-callbacks');
    const started = performance.now();
    const { levels } = driveLoop(harness.tracer, 'slow-callbacks', 5, 3);
    expect(levels).toEqual(EXPECTED_LEVELS);
    expect(slowCalls).toBe(4); // warning at 2, critical, critical, warning after compaction
    expect(harness.loopEvents.map((e) => `${e.level}:${e.detector}:${e.count}`)).toEqual([
      'warning:generic_repeat:2',
      'critical:generic_repeat:3',
      'critical:generic_repeat:4',
      'warning:generic_repeat:2',
    ]);
    expect(signal.aborted).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 50 - 5); // they really were slow and synchronous
  });
});

describe('exporters', () => {
  for (const [name, make] of [
    [
      'an exporter whose export throws, behind SimpleSpanProcessor',
      () => new SimpleSpanProcessor(new ThrowingExporter()),
    ],
    [
      'an exporter whose export throws, behind BatchSpanProcessor',
      () => new BatchSpanProcessor(new ThrowingExporter(), { scheduledDelayMillis: 1, maxExportBatchSize: 2 }),
    ],
    [
      'an exporter that reports FAILED, behind SimpleSpanProcessor',
      () => new SimpleSpanProcessor(new FailingExporter()),
    ],
    [
      'an exporter that never calls back, behind SimpleSpanProcessor',
      () => new SimpleSpanProcessor(new HangingExporter()),
    ],
    [
      'an exporter that never calls back, behind BatchSpanProcessor',
      () =>
        new BatchSpanProcessor(new HangingExporter(), {
          scheduledDelayMillis: 1,
          maxExportBatchSize: 2,
          exportTimeoutMillis: 100,
        }),
    ],
  ] as const) {
    it(`${name}: detection and abort still work, nothing propagates`, async () => {
      const h = await withExporter(make());
      const signal = h.processor.runSignal('exporter-run');
      let levels: Array<string | undefined> = [];
      expect(() => {
        levels = driveLoop(h.tracer, 'exporter-run', 5, 3).levels;
      }).not.toThrow();
      expect(levels).toEqual(EXPECTED_LEVELS);
      expect(h.events.filter((e) => e.level === 'critical')).toHaveLength(2);
      expect(h.aborts).toHaveLength(1);
      expect(signal.aborted).toBe(true);
      // Give the batch processor time to try (and fail) a few exports.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Our own flush/shutdown never wait on the exporter.
      await expect(h.processor.forceFlush()).resolves.toBeUndefined();
      await expect(h.processor.shutdown()).resolves.toBeUndefined();
      expect(h.processor.getStats().liveRuns).toBe(0);
      expect(unhandled).toEqual([]);
      // (The provider is not shut down: a hanging exporter would hang its shutdown, which is the SDK's business.)
    });
  }
});
