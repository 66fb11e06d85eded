/**
 * `withRun` carries a run in the OTel context, with no span of its own: loops whose model and
 * tool calls each start their own trace (no enclosing span) accumulate one history, and calls
 * under a remote parent (a request handler) join their session's run.
 */
import { context, ROOT_CONTEXT, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, traceRun, withRun } from '../../src/index.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  sc,
  startRunSpan,
  toolCall,
} from '../helpers/otel-harness.js';

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

/** One turn of a bare loop: a chat span and a tool span, each the root of its own trace. */
function bareTurn(tracer: Tracer, attributes: Record<string, string> = {}): string | undefined {
  tracer.startSpan('chat model', { root: true, attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat' } }).end();
  const span = toolCall(
    tracer,
    { tool: 'lookup_order', args: { orderId: '42' }, parent: trace.deleteSpan(context.active()), attributes },
    { result: 'pending' },
  );
  expect((span as unknown as ReadableSpan).parentSpanContext).toBeUndefined();
  return getToolLoopVerdict(span)?.level;
}

describe('withRun', () => {
  it('gives a bare loop (every call its own trace) one run: detected, and aborted through runSignal', async () => {
    const { tracer, processor, loopEvents } = await createOtelHarness({
      config: LOW_THRESHOLDS,
      abortOnCritical: true,
    });
    const bare = Array.from({ length: 5 }, () => bareTurn(tracer));
    expect(bare).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const signal = processor.runSignal('session-1');
    const rootEnded = processor.getStats().releasedRuns['root-ended'];
    const levels = withRun({ runId: 'session-1', agentId: 'support' }, () =>
      Array.from({ length: 5 }, () => bareTurn(tracer)),
    );
    expect(levels).toEqual([undefined, undefined, 'warning', 'warning', 'critical']);
    expect(loopEvents.map((event) => [event.runId, event.agentId])).toEqual(Array(2).fill(['session-1', 'support']));
    expect(signal.aborted).toBe(true);
    // No span of the run is its root: its state outlives every span, until the idle TTL or the cap.
    expect(processor.getStats()).toMatchObject({ liveRuns: 1, releasedRuns: { 'root-ended': rootEnded } });
  });

  it('scopes spans recognised only at their end, started bare as trace roots', async () => {
    const { tracer, loopEvents } = await createOtelHarness({ config: LOW_THRESHOLDS });
    withRun({ runId: 'late' }, () => {
      for (let call = 0; call < 5; call += 1) {
        const span = tracer.startSpan('lookup_order.tool', { root: true });
        span.setAttributes({
          [sc.ATTR_TRACELOOP_SPAN_KIND]: 'tool',
          [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'lookup_order',
          [sc.ATTR_TRACELOOP_ENTITY_INPUT]: '{"args":[],"kwargs":{"orderId":"42"}}',
          [sc.ATTR_TRACELOOP_ENTITY_OUTPUT]: '"pending"',
        });
        span.end();
      }
    });
    expect(loopEvents.map((event) => `${event.level}@${event.runId}`)).toEqual(['warning@late', 'critical@late']);
  });

  it("joins calls under a remote parent (a request handler) to the run, not to each request's entry", async () => {
    const { tracer, loopEvents } = await createOtelHarness({ config: LOW_THRESHOLDS });
    const request = (n: number) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: `${n}`.padStart(32, 'a'),
        spanId: `${n}`.padStart(16, 'b'),
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    for (let n = 1; n <= 5; n += 1)
      context.with(request(n), () =>
        withRun({ runId: 'mcp-session' }, () =>
          toolCall(tracer, { tool: 'lookup_order', args: { orderId: '42' } }, { result: 'pending' }),
        ),
      );
    expect(loopEvents.map((event) => `${event.level}@${event.runId}`)).toEqual([
      'warning@mcp-session',
      'critical@mcp-session',
    ]);
  });

  it("yields to a run of the span's own, and to a live ancestor's run", async () => {
    const { tracer, loopEvents } = await createOtelHarness({ config: LOW_THRESHOLDS });
    await withRun({ runId: 'outer' }, async () => {
      await traceRun(tracer, { runId: 'inner' }, () => {
        for (let call = 0; call < 3; call += 1) toolCall(tracer, { tool: 'a', args: {} }, { result: 'x' });
      });
      const run = startRunSpan(tracer, { runId: 'span-run' });
      for (let call = 0; call < 3; call += 1) toolCall(tracer, { tool: 'b', args: {}, parent: run }, { result: 'x' });
      run.end();
      for (let call = 0; call < 3; call += 1)
        toolCall(
          tracer,
          { tool: 'c', args: {}, attributes: { [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'conversation' } },
          { result: 'x' },
        );
      for (let call = 0; call < 3; call += 1) toolCall(tracer, { tool: 'd', args: {} }, { result: 'x' });
    });
    expect(loopEvents.map((event) => `${event.toolName}@${event.runId}`)).toEqual([
      'a@inner',
      'b@span-run',
      'c@conversation',
      'd@outer',
    ]);
  });

  it('returns what fn returns, and rejects a blank run id with a TypeError without calling fn', () => {
    expect(withRun({ runId: ' r ' }, () => 42)).toBe(42);
    let called = false;
    expect(() => withRun({ runId: '  ' }, () => (called = true))).toThrow(TypeError);
    expect(() => withRun(undefined as never, () => (called = true))).toThrow(/runId/);
    expect(called).toBe(false);
  });
});
