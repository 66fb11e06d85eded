/**
 * Acceptance: `traceRun` opens the run's root span and gives the body an `AbortSignal` that
 * the processor aborts with a `CompactionLoopPersistedError` when the post-compaction guard
 * fires — after windowSize identical (tool, args, result) triples following
 * `markCompactionRetry` — and never when results change.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  ToolLoopBlockedError,
  traceRun,
  traceToolCall,
} from '../../src/index.js';
import { C0, createOtelHarness, R, resetOtelGlobals, sc } from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

describe('traceRun root span', () => {
  it('carries tool_loop.run_id and gen_ai.agent.id, and parents the tool spans of the body', async () => {
    const h = await createOtelHarness({ config: C0, contextManager: true });
    const value = await traceRun(h.tracer, { runId: ' run-1 ', agentId: 'agent-1' }, async ({ runId }) => {
      await traceToolCall(h.tracer, { name: 'read', args: { path: '/x' } }, () => 'ok');
      return runId;
    });
    expect(value).toBe('run-1');
    const root = h.finished().find((span) => span.attributes[sc.ATTR_TOOL_LOOP_RUN_ID] !== undefined)!;
    expect(root.name).toBe('invoke_agent agent-1');
    expect(root.attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-1',
      [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-1',
    });
    const tool = h.finished().find((span) => span.name === 'execute_tool read')!;
    expect(tool.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(tool.spanContext().traceId).toBe(root.spanContext().traceId);
  });

  it('rejects with a TypeError for a blank runId and never calls the body', async () => {
    const h = await createOtelHarness({ config: C0, contextManager: true });
    const body = vi.fn();
    await expect(traceRun(h.tracer, { runId: '   ' }, body)).rejects.toBeInstanceOf(TypeError);
    await expect(traceRun(h.tracer, { runId: '' }, body)).rejects.toThrow(/runId/);
    expect(body).not.toHaveBeenCalled();
    expect(h.finished()).toEqual([]);
  });

  it("releases the run's loop state in the processor when the body settles", async () => {
    const h = await createOtelHarness({ config: C0, contextManager: true });
    await traceRun(h.tracer, { runId: 'run-release' }, async () => {
      await traceToolCall(h.tracer, { name: 'read', args: { path: '/x' } }, () => 'ok');
      expect(h.processor.getStats().liveRuns).toBe(1);
    });
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 0, releasedRuns: { 'root-ended': 1 } });
  });
});

describe('traceRun abort signal and the post-compaction guard', () => {
  it('aborts with CompactionLoopPersistedError after 3 identical triples following markCompactionRetry, and rejects with that reason', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    let captured: AbortSignal | undefined;
    const abortedAfter: boolean[] = [];
    const run = traceRun(h.tracer, { runId: 'run-guard', agentId: 'gw-agent' }, async ({ signal }) => {
      captured = signal;
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1) {
        await traceToolCall(h.tracer, { name: 'gateway', args: { action: 'lookup', path: 'x' } }, () => R('r1'));
        abortedAfter.push(signal.aborted);
      }
      return 'body finished';
    });
    const error = await run.catch((reason: unknown) => reason);
    expect(abortedAfter).toEqual([false, false, true]);
    expect(error).toBeInstanceOf(CompactionLoopPersistedError);
    expect(error).toBe(captured!.reason);
    expect(error).toMatchObject({
      name: 'CompactionLoopPersistedError',
      code: 'compaction_loop_persisted',
      detector: 'compaction_loop_persisted',
      count: 3,
      toolName: 'gateway',
      message:
        'CRITICAL: tool gateway repeated 3 times with identical arguments and identical results within 3 attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.',
    });
    const root = h.finished().find((span) => span.name === 'invoke_agent gw-agent')!;
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    expect(h.abortEvents.map((event) => event.runId)).toEqual(['run-guard']);
  });

  it('never aborts when results change: signal.aborted stays false and the body value resolves', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    let captured: AbortSignal | undefined;
    const value = await traceRun(h.tracer, { runId: 'run-progress' }, async ({ signal }) => {
      captured = signal;
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { action: 'lookup', path: 'x' } }, () => R(`r${i}`));
      // Beyond the window too: a closed window never aborts.
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { action: 'lookup', path: 'x' } }, () => R('same'));
      return 'done';
    });
    expect(value).toBe('done');
    expect(captured!.aborted).toBe(false);
    expect(h.abortEvents).toEqual([]);
  });

  it('never aborts without a compaction retry, however many identical triples there are', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    const value = await traceRun(h.tracer, { runId: 'run-unarmed' }, async ({ signal }) => {
      for (let i = 0; i < 5; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
      return signal.aborted;
    });
    expect(value).toBe(false);
  });

  it('the abort reason wins over an error the body throws after the abort', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    const run = traceRun(h.tracer, { runId: 'run-wins' }, async ({ signal }) => {
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
      if (signal.aborted) throw new Error('model call aborted');
      return 'unreachable';
    });
    await expect(run).rejects.toBeInstanceOf(CompactionLoopPersistedError);
  });

  it('only the aborted run is aborted: a concurrent run keeps its signal', async () => {
    const h = await createOtelHarness({ config: {}, contextManager: true });
    let otherSignal: AbortSignal | undefined;
    const other = traceRun(h.tracer, { runId: 'run-bystander' }, async ({ signal }) => {
      otherSignal = signal;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 'bystander ok';
    });
    const looping = traceRun(h.tracer, { runId: 'run-looping' }, async () => {
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { q: 1 } }, () => R('same'));
    });
    await expect(looping).rejects.toBeInstanceOf(CompactionLoopPersistedError);
    await expect(other).resolves.toBe('bystander ok');
    expect(otherSignal!.aborted).toBe(false);
  });

  it('with abortOnCritical the signal aborts with a ToolLoopBlockedError on a critical verdict', async () => {
    const h = await createOtelHarness({ config: C0, contextManager: true, abortOnCritical: true });
    const run = traceRun(h.tracer, { runId: 'run-critical' }, async ({ signal }) => {
      for (let i = 0; i < 21; i += 1)
        await traceToolCall(h.tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
      return signal.aborted;
    });
    await expect(run).rejects.toBeInstanceOf(ToolLoopBlockedError);
  });
});
