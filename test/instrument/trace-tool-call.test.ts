/**
 * Acceptance: `traceToolCall` consults the processor's verdict before running the tool —
 * a blocked tool is never executed — returns OpenClaw's blocked result (or throws), passes
 * the warning text to the tool body, and records the hashed outcome on the span.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ToolLoopBlockedError,
  toolLoopSystemNote,
  traceRun,
  traceToolCall,
  type ToolCallContext,
} from '../../src/index.js';
import { C0, createOtelHarness, R, resetOtelGlobals, sc, type OtelHarness } from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

const genericCritical = (count: number) =>
  `CRITICAL: Called read with identical arguments and identical outcomes ${count} times. Session execution blocked to prevent runaway loops.`;
const GENERIC_CRITICAL_20 = genericCritical(20);

async function harness(config: object = C0): Promise<OtelHarness> {
  return createOtelHarness({ config, contextManager: true });
}

describe('traceToolCall blocks before execution', () => {
  it('never executes a blocked tool: 25 identical calls run the tool exactly 20 times and return the blocked result 5 times', async () => {
    const h = await harness();
    const execute = vi.fn(() => R('same output', { ok: true }));
    // endOnSecondCritical off: every critical is a recovery turn, so all 25 calls are asked for.
    const results = await traceRun(h.tracer, { runId: 'run-spy', endOnSecondCritical: false }, async () => {
      const out = [];
      for (let i = 0; i < 25; i += 1)
        out.push(await traceToolCall(h.tracer, { name: 'read', args: { path: '/same.txt' } }, execute));
      return out;
    });
    expect(execute).toHaveBeenCalledTimes(20);
    // The 11th call drew the warning at count 10: its result carries OpenClaw's system note.
    const withNote = R('same output', { ok: true });
    withNote.content.push({ type: 'text', text: toolLoopSystemNote(10) });
    results
      .slice(0, 20)
      .forEach((result, i) => expect(result).toEqual(i === 10 ? withNote : R('same output', { ok: true })));
    // Each blocked call is recorded as a loop veto, so the count goes on: 20, 21, … 24.
    results.slice(20).forEach((result, i) => {
      const reason = genericCritical(20 + i);
      expect(result).toMatchObject({
        content: [{ type: 'text', text: expect.stringContaining(reason) as string }],
        details: { status: 'blocked', deniedReason: 'tool-loop', reason, intervention: { stage: 'recovery' } },
        isError: true,
        executionStarted: false,
      });
    });
    const blockedSpans = h.events(sc.EVENT_TOOL_LOOP_BLOCKED).map(({ span }) => span);
    expect(blockedSpans).toHaveLength(5);
    for (const span of blockedSpans) expect(span.attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
  });

  it("with onBlocked:'throw' rejects with a ToolLoopBlockedError and still does not execute", async () => {
    const h = await harness();
    const execute = vi.fn(() => 'same');
    await traceRun(h.tracer, { runId: 'run-throw' }, async () => {
      for (let i = 0; i < 20; i += 1)
        await traceToolCall(h.tracer, { name: 'read', args: { path: '/a' }, onBlocked: 'throw' }, execute);
      const blocked = traceToolCall(h.tracer, { name: 'read', args: { path: '/a' }, onBlocked: 'throw' }, execute);
      await expect(blocked).rejects.toBeInstanceOf(ToolLoopBlockedError);
      await expect(blocked).rejects.toMatchObject({
        code: 'tool_loop_blocked',
        detector: 'generic_repeat',
        count: 20,
        toolName: 'read',
        message: GENERIC_CRITICAL_20,
      });
    });
    expect(execute).toHaveBeenCalledTimes(20);
  });

  it('a different call is not blocked by another call’s loop (the spy runs for it)', async () => {
    const h = await harness();
    const looping = vi.fn(() => 'same');
    const other = vi.fn(() => 'fine');
    await traceRun(h.tracer, { runId: 'run-other' }, async () => {
      for (let i = 0; i < 21; i += 1) await traceToolCall(h.tracer, { name: 'read', args: { path: '/a' } }, looping);
      expect(await traceToolCall(h.tracer, { name: 'read', args: { path: '/b' } }, other)).toBe('fine');
    });
    expect(looping).toHaveBeenCalledTimes(20);
    expect(other).toHaveBeenCalledTimes(1);
  });

  it('throws a TypeError for a blank tool name without executing', async () => {
    const h = await harness();
    const execute = vi.fn();
    await expect(traceToolCall(h.tracer, { name: '  ', args: {} }, execute)).rejects.toBeInstanceOf(TypeError);
    expect(execute).not.toHaveBeenCalled();
  });
});

describe('traceToolCall surfaces warnings to the tool body', () => {
  it('passes the warning text to execute exactly on the call that emitted it (count 10), and not on suppressed repeats', async () => {
    const h = await harness();
    const seen: Array<string | undefined> = [];
    await traceRun(h.tracer, { runId: 'run-warn' }, async () => {
      for (let i = 0; i < 15; i += 1) {
        await traceToolCall(h.tracer, { name: 'exec', args: { command: 'date' } }, (call: ToolCallContext) => {
          seen.push(call.warning);
          return R(`tick ${i}`, { status: 'completed', exitCode: 0, aggregated: `tick ${i}` });
        });
      }
    });
    const warning =
      'WARNING: You have called exec 10 times with identical arguments. If this is not making progress, stop retrying and report the task as failed.';
    expect(seen).toEqual([...Array<undefined>(10).fill(undefined), warning, ...Array<undefined>(4).fill(undefined)]);
    expect(h.loopEvents.map((event) => event.message)).toEqual([warning]);
  });
});

describe('traceToolCall records the outcome', () => {
  it('records tool_loop.args_hash and tool_loop.result_hash and no raw arguments or results', async () => {
    const h = await harness();
    await traceRun(h.tracer, { runId: 'run-hash' }, () =>
      traceToolCall(h.tracer, { name: 'read', args: { path: '/secret-arg-value' }, callId: 'call-1' }, () =>
        R('secret-result-value', { ok: true }),
      ),
    );
    const span = h.finished().find((s) => s.name === 'execute_tool read');
    expect(span).toBeDefined();
    expect(span!.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      [sc.ATTR_GEN_AI_TOOL_CALL_ID]: 'call-1',
    });
    expect(span!.attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH]).toEqual(expect.stringMatching(/^read:[0-9a-f]+$/));
    expect(span!.attributes[sc.ATTR_TOOL_LOOP_RESULT_HASH]).toEqual(expect.stringMatching(/^[0-9a-f]+$/));
    expect(span!.attributes).not.toHaveProperty(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
    expect(span!.attributes).not.toHaveProperty(sc.ATTR_GEN_AI_TOOL_CALL_RESULT);
    const everything = JSON.stringify(h.finished().map((s) => ({ attributes: s.attributes, events: s.events })));
    expect(everything).not.toContain('secret-arg-value');
    expect(everything).not.toContain('secret-result-value');
  });

  it('identical results give identical result hashes and different results different ones', async () => {
    const h = await harness();
    await traceRun(h.tracer, { runId: 'run-hashes' }, async () => {
      for (const text of ['one', 'one', 'two'])
        await traceToolCall(h.tracer, { name: 'read', args: { path: '/x' } }, () => R(text));
    });
    const hashes = h
      .finished()
      .filter((s) => s.name === 'execute_tool read')
      .map((s) => s.attributes[sc.ATTR_TOOL_LOOP_RESULT_HASH]);
    expect(hashes).toHaveLength(3);
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).not.toBe(hashes[0]);
  });

  it('with recordContent:true records the raw arguments and result as gen_ai.tool.call.* (opt-in control)', async () => {
    const h = await harness();
    await traceRun(h.tracer, { runId: 'run-content' }, () =>
      traceToolCall(h.tracer, { name: 'read', args: { path: '/p' }, recordContent: true }, () => ({ text: 'r' })),
    );
    const span = h.finished().find((s) => s.name === 'execute_tool read')!;
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBe('{"path":"/p"}');
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT]).toBe('{"text":"r"}');
  });

  it('on "Unknown tool: x" errors records tool_loop.unknown_tool, an error: hash and ERROR status, and rethrows the same error', async () => {
    const h = await harness();
    const failure = new Error('Unknown tool: Foo.Bar');
    await traceRun(h.tracer, { runId: 'run-unknown' }, async () => {
      await expect(
        traceToolCall(h.tracer, { name: 'foo_tool', args: { a: 1 } }, () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
    });
    const span = h.finished().find((s) => s.name === 'execute_tool foo_tool')!;
    expect(span.attributes[sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL]).toBe('foo.bar');
    expect(span.attributes[sc.ATTR_TOOL_LOOP_RESULT_HASH]).toEqual(expect.stringMatching(/^error:[0-9a-f]+$/));
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Unknown tool: Foo.Bar' });
    expect(span.events.map((event) => event.name)).toContain('exception');
  });

  it('ten unknown-tool failures (varying args) block the eleventh attempt without executing it', async () => {
    const h = await harness();
    const execute = vi.fn(() => {
      throw new Error('Tool exec not found');
    });
    const outcomes: unknown[] = [];
    await traceRun(h.tracer, { runId: 'run-unknown-repeat' }, async () => {
      for (let i = 0; i < 11; i += 1) {
        outcomes.push(
          await traceToolCall(h.tracer, { name: 'exec', args: { command: `echo ${i}` } }, execute).catch(
            (error: unknown) => error,
          ),
        );
      }
    });
    expect(execute).toHaveBeenCalledTimes(10);
    expect(outcomes[10]).toMatchObject({
      details: {
        status: 'blocked',
        deniedReason: 'tool-loop',
        reason:
          'CRITICAL: attempted unavailable tool exec 10 times. Stop retrying that missing tool and answer without it.',
      },
    });
  });

  it('ends every tool span it starts, including blocked ones', async () => {
    const h = await harness();
    await traceRun(h.tracer, { runId: 'run-ends', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 22; i += 1)
        await traceToolCall(h.tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
    });
    expect(h.finished().filter((s) => s.name === 'execute_tool read')).toHaveLength(22);
  });
});
