/**
 * Acceptance: `markCompactionRetry` records a `compaction.retry` span that arms the
 * post-compaction guard for its run, visible as a `tool_loop.guard_armed`
 * event and OpenClaw's `post-compaction guard armed for N attempts` diag line.
 */
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { CompactionLoopPersistedError, markCompactionRetry, traceRun, traceToolCall } from '../../src/index.js';
import {
  createOtelHarness,
  R,
  recordDiag,
  resetOtelGlobals,
  sc,
  startRunSpan,
  toolCall,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

describe('markCompactionRetry', () => {
  it('records a compaction.retry span under the active run with a guard_armed event (window 3) and logs the arming', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({ config: {}, contextManager: true });
    await traceRun(h.tracer, { runId: 'run-mark', agentId: 'agent-mark' }, async () => {
      markCompactionRetry(h.tracer);
    });
    const root = h.finished().find((span) => span.name === 'invoke_agent agent-mark')!;
    const retry = h.finished().find((span) => span.name === 'compaction.retry')!;
    expect(retry).toBeDefined();
    expect(retry.attributes[sc.ATTR_COMPACTION_RETRY]).toBe(true);
    expect(retry.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(retry.events.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_GUARD_ARMED]);
    expect(retry.events[0].attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'compaction_loop_persisted',
      [sc.ATTR_TOOL_LOOP_ACTION]: 'arm',
      [sc.ATTR_TOOL_LOOP_WINDOW_SIZE]: 3,
      [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-mark',
      [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-mark',
      [sc.ATTR_TOOL_LOOP_MESSAGE]: 'post-compaction guard armed for 3 attempts',
    });
    expect(diagLog.matching('post-compaction guard armed for 3 attempts')).toHaveLength(1);
  });

  it('uses the configured window: postCompactionGuard.windowSize 2 arms for 2 and aborts on the second identical triple', async () => {
    const h = await createOtelHarness({
      config: { tools: { loopDetection: { postCompactionGuard: { windowSize: 2 } } } },
      contextManager: true,
    });
    const seen: boolean[] = [];
    const run = traceRun(h.tracer, { runId: 'run-window-2' }, async ({ signal }) => {
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 2; i += 1) {
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
        seen.push(signal.aborted);
      }
    });
    await expect(run).rejects.toMatchObject({ name: 'CompactionLoopPersistedError', count: 2 });
    expect(seen).toEqual([false, true]);
    const retry = h.finished().find((span) => span.name === 'compaction.retry')!;
    expect(retry.events[0].attributes?.[sc.ATTR_TOOL_LOOP_WINDOW_SIZE]).toBe(2);
  });

  it('re-arms: each retry opens a fresh window judged on its own', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    const run = traceRun(h.tracer, { runId: 'run-rearm' }, async ({ signal }) => {
      markCompactionRetry(h.tracer);
      await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('a'));
      await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('b')); // window spoiled
      markCompactionRetry(h.tracer); // fresh window
      for (let i = 0; i < 3; i += 1) await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('c'));
      return signal.aborted;
    });
    await expect(run).rejects.toBeInstanceOf(CompactionLoopPersistedError);
    expect(h.finished().filter((span) => span.name === 'compaction.retry')).toHaveLength(2);
  });

  it('with loopDetection.enabled:false records the span but arms nothing and never aborts', async () => {
    const h = await createOtelHarness({
      config: { tools: { loopDetection: { enabled: false } } },
      contextManager: true,
    });
    const value = await traceRun(h.tracer, { runId: 'run-off' }, async ({ signal }) => {
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
      return signal.aborted;
    });
    expect(value).toBe(false);
    const retry = h.finished().find((span) => span.name === 'compaction.retry')!;
    expect(retry.events).toEqual([]);
  });

  it('with options.runId arms the guard of that run even when called outside the run’s active context', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    const run = traceRun(h.tracer, { runId: 'run-detached' }, async ({ signal }) => {
      // e.g. a compaction callback scheduled by the model client, without the run's context
      context.with(ROOT_CONTEXT, () => markCompactionRetry(h.tracer, { runId: 'run-detached' }));
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
      return signal.aborted;
    });
    await expect(run).rejects.toBeInstanceOf(CompactionLoopPersistedError);
  });

  it('with options.runId (raw spans, no active context) arms the guard for tool spans carrying that run id', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-raw' });
    markCompactionRetry(h.tracer, { runId: 'run-raw' });
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { tool: 'gateway', args: { q: 1 }, parent: root }, { result: R('same') });
    root.end();
    expect(h.abortEvents.map((event) => `${event.runId}:${event.count}`)).toEqual(['run-raw:3']);
  });

  it('with options.runId outside the run’s context keeps the run’s loop history (does not release the run)', async () => {
    const h = await createOtelHarness({ config: { tools: { loopDetection: { enabled: true } } } });
    const root = startRunSpan(h.tracer, { runId: 'run-history' });
    for (let i = 0; i < 10; i += 1) toolCall(h.tracer, { tool: 'read', args: { path: '/same' }, parent: root });
    markCompactionRetry(h.tracer, { runId: 'run-history' });
    expect(h.processor.getStats().releasedRuns['root-ended']).toBe(0);
    const next = toolCall(h.tracer, { tool: 'read', args: { path: '/same' }, parent: root });
    expect(h.events(sc.EVENT_TOOL_LOOP_WARNING).map(({ span }) => span.spanContext().spanId)).toEqual([
      next.spanContext().spanId,
    ]);
    root.end();
  });
});
