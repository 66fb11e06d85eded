/**
 * Every text taken from a span is bounded as it is read, with one cap (128 characters): a tool
 * name, a tool call id, a run id or an agent id of a megabyte is kept as its first characters and
 * a digest of the whole, a string of its own, so the history never holds the big text (nor a
 * slice that keeps it alive), while two long texts that differ anywhere stay apart.
 */
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolLoopBlockedError, traceRun, traceToolCall, withRun } from '../../src/index.js';
import { createWorld, resetGlobals, runRoot, sc, SMALL, toolCall, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

const CAP = 128;
const MB = 1024 * 1024;

/** A fresh text of about 1 MB, built anew each time (no two share storage). */
function megabyte(tag: string): string {
  return `${'t'.repeat(MB)}${tag}`;
}

function exportedEventStrings(w: World): string[] {
  return w.exporter
    .getFinishedSpans()
    .flatMap((span) => span.events.flatMap((event) => Object.values(event.attributes ?? {})))
    .filter((value): value is string => typeof value === 'string');
}

describe('texts taken from spans', () => {
  it('1 MB tool names are not kept alive: two live runs of 30 calls each hold a few kilobytes of them', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    world = await createWorld({ config: SMALL });
    const roots: Span[] = [];
    gc();
    const before = getHeapStatistics().used_heap_size;
    for (let run = 0; run < 2; run += 1) {
      const root = runRoot(world.tracer, `run-${run}`);
      roots.push(root);
      for (let call = 0; call < 30; call += 1)
        toolCall(world.tracer, { tool: megabyte(`${run}-${call}`), args: '{"q":1}', result: '"r"', parent: root });
    }
    // Pending exports hold their spans (and so the names) until they complete.
    await world.provider.forceFlush();
    world.exporter.reset();
    gc();
    const grown = getHeapStatistics().used_heap_size - before;
    expect(world.processor.getStats().liveRuns).toBe(2);
    for (const root of roots) root.end();
    expect(grown).toBeLessThan(8 * MB);
  });

  it('long tool names are bounded in events and callbacks, and two that differ only at their end stay apart', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'names');
    const call = (tool: string) =>
      toolCall(world!.tracer, { tool, args: '{"q":1}', result: '"same"', parent: root }).verdictAtStart;
    // Two calls of each of two names: below the warning at the third identical call, unless they merged.
    const twoNames = ['a', 'a', 'b', 'b'].map((tag) => call(megabyte(tag)));
    expect(twoNames).toEqual([undefined, undefined, undefined, undefined]);
    // One name: the third identical call warns, the fourth is blocked.
    const same = [1, 2, 3, 4].map(() => call(megabyte('c')));
    root.end();
    expect(same).toEqual([undefined, undefined, 'warning', 'critical']);
    const names = world.loopEvents.map((event) => event.toolName);
    expect(names).toHaveLength(2);
    expect(names[0]).toBe(names[1]);
    expect(names[0].length).toBe(CAP);
    expect(names[0]).toMatch(/^t+…[0-9a-f]{16}$/);
    for (const value of exportedEventStrings(world)) expect(value.length).toBeLessThan(2000);
  });

  it('a long run id is bounded alike by the adapters, traceRun and runSignal, and stays its own run', async () => {
    world = await createWorld({ config: SMALL, abortOnCritical: true });
    const runId = megabyte('run-a');
    const signal = world.processor.runSignal(runId);
    const other = world.processor.runSignal(megabyte('run-b'));
    const tracer = world.tracer;
    const run = traceRun(tracer, { runId }, async () => {
      for (let i = 0; i < 4; i += 1) await traceToolCall(tracer, { name: 'read', args: { p: 1 } }, () => 'same');
    });
    await expect(run).rejects.toBeInstanceOf(ToolLoopBlockedError);
    expect(signal.aborted).toBe(true);
    expect(other.aborted).toBe(false);
    expect(world.loopEvents.map((event) => event.runId.length)).toEqual([CAP, CAP]);
  });

  it('withRun bounds its run and agent ids alike: runSignal finds the run, events carry bounded ids', async () => {
    world = await createWorld({ config: SMALL, abortOnCritical: true });
    const runId = megabyte('with-run');
    const signal = world.processor.runSignal(runId);
    const tracer = world.tracer;
    withRun({ runId, agentId: megabyte('agent') }, () => {
      for (let i = 0; i < 4; i += 1)
        toolCall(tracer, { tool: 'read', args: '{"p":1}', result: '"same"', parent: context.active() });
    });
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    expect(world.loopEvents.map((event) => [event.runId.length, event.agentId?.length])).toEqual([
      [CAP, CAP],
      [CAP, CAP],
    ]);
  });

  it('model-call spans: a requested call’s long tool name and call id are bounded, and its result still found', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'chat-run');
    const tool = megabyte('lookup');
    const callId = (turn: number) => megabyte(`call-${turn}`);
    const part = (turn: number) => ({ type: 'tool_call', id: callId(turn), name: tool, arguments: { q: 1 } });
    const messages: unknown[] = [{ role: 'user', parts: [{ type: 'text', content: 'go' }] }];
    for (let turn = 0; turn < 4; turn += 1) {
      const span = world.tracer.startSpan(
        'chat model',
        {
          attributes: {
            [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
            [sc.ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(messages),
          },
        },
        trace.setSpan(context.active(), root),
      );
      span.setAttribute(
        sc.ATTR_GEN_AI_OUTPUT_MESSAGES,
        JSON.stringify([{ role: 'assistant', parts: [part(turn)], finish_reason: 'tool_call' }]),
      );
      span.end();
      messages.push(
        { role: 'assistant', parts: [part(turn)] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: callId(turn), response: 'same' }] },
      );
    }
    root.end();
    // The third identical call warns, and the fourth is blocked, only if the earlier results were matched to their calls.
    expect(world.loopEvents.map((event) => [event.level, event.toolName.length])).toEqual([
      ['warning', CAP],
      ['critical', CAP],
    ]);
  });

  it('a long name of an unavailable tool (tool_loop.unknown_tool) is bounded in the verdict', async () => {
    world = await createWorld({
      config: { tools: { loopDetection: { ...SMALL.tools.loopDetection, unknownToolThreshold: 2 } } },
    });
    const root = runRoot(world.tracer, 'unknown');
    for (let i = 0; i < 3; i += 1) {
      const { span } = toolCall(world.tracer, {
        tool: 'dispatch',
        args: `{"i":${i}}`,
        parent: root,
        attributes: {
          [sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL]: megabyte('missing'),
          [sc.ATTR_TOOL_LOOP_RESULT_HASH]: 'error:1',
        },
      });
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    root.end();
    const blocked = world.loopEvents.find((event) => event.detector === 'unknown_tool_repeat');
    expect(blocked?.warningKey.length).toBeLessThanOrEqual('unknown-tool:dispatch:'.length + CAP);
    expect(blocked?.message.length).toBeLessThan(400);
  });
});
