/** `shutdown()` releases every run and makes later hooks no-ops; `forceFlush()` holds nothing back. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  compactionRetrySpan,
  createOtelHarness,
  resetOtelGlobals,
  sc,
  spanAttributes,
  spanEvents,
  startRunSpan,
  toolCall,
  W2_C3,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

describe('ToolLoopSpanProcessor.shutdown', () => {
  it('releases every live run (counted as shutdown) and a tool span started afterwards creates no run state', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    const roots = ['r1', 'r2'].map((runId) => startRunSpan(h.tracer, { runId }));
    for (const root of roots)
      toolCall(h.tracer, { tool: 'read', args: { path: '/a' }, parent: root }, { result: 'ok' });
    expect(h.processor.getStats().liveRuns).toBe(2);

    await h.processor.shutdown();
    expect(h.processor.getStats()).toEqual({
      liveRuns: 0,
      releasedRuns: { 'root-ended': 0, idle: 0, capacity: 0, shutdown: 2 },
      recovery: { recovered: 0, repeated: 0, runEnded: 0 },
    });

    // The provider is still up (only the processor was shut down): its hooks must do nothing.
    const late = startRunSpan(h.tracer, { runId: 'after' });
    const spans = [1, 2, 3, 4].map(() =>
      toolCall(h.tracer, { tool: 'read', args: { path: '/a' }, parent: late }, { result: 'ok' }),
    );
    compactionRetrySpan(h.tracer, late).end();
    late.end();
    for (const root of roots) root.end();
    expect(h.processor.getStats().liveRuns).toBe(0);
    expect(h.loopEvents).toEqual([]);
    expect(spans.flatMap((span) => spanEvents(span))).toEqual([]);
    expect(spans.map((span) => spanAttributes(span)[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(h.processor.getStats().releasedRuns.shutdown).toBe(2);
  });

  it('the same four calls before shutdown do warn and block (so the test above can tell)', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    const root = startRunSpan(h.tracer, { runId: 'before' });
    const spans = [1, 2, 3, 4].map(() =>
      toolCall(h.tracer, { tool: 'read', args: { path: '/a' }, parent: root }, { result: 'ok' }),
    );
    expect(spans.map((span) => spanAttributes(span)[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual([
      undefined,
      undefined,
      'warning',
      'critical',
    ]);
    expect(h.processor.getStats().liveRuns).toBe(1);
    root.end();
  });

  it('a runSignal asked for after shutdown never aborts and is not kept', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    await h.processor.shutdown();
    const signal = h.processor.runSignal('r1');
    expect(signal.aborted).toBe(false);
    expect(h.processor.runSignal('r1')).not.toBe(signal);
  });

  it('forceFlush resolves at once and changes nothing', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    const root = startRunSpan(h.tracer, { runId: 'r1' });
    toolCall(h.tracer, { tool: 'read', args: { path: '/a' }, parent: root }, { result: 'ok' });
    await h.processor.forceFlush();
    expect(h.processor.getStats().liveRuns).toBe(1);
    root.end();
    expect(h.processor.getStats().liveRuns).toBe(0);
  });
});
