/**
 * Children whose parent is only a span context (as after propagation inside the process,
 * or with instrumentations that hand spans on by context) find their run through the span id.
 * With many other scoped spans alive, that lookup must not silently fall back to the trace id
 * and merge two runs of one trace.
 */
import { ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, repeatRead, resetGlobals, runRoot, SMALL, sc, toolCall, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** A context that holds only the span's span context, not the span object. */
const byContextOnly = (span: Span) => trace.setSpanContext(ROOT_CONTEXT, span.spanContext());

/** `count` live `delegate` tool spans under `parent`, each with arguments of its own. */
function liveDelegates(world: World, parent: Context, count: number): Span[] {
  return Array.from({ length: count }, (_, i) =>
    world.tracer.startSpan(
      'execute_tool delegate',
      {
        attributes: {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'delegate',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ task: i }),
        },
      },
      parent,
    ),
  );
}

describe('span-context-only parents under load', () => {
  it('two runs in one trace keep separate histories with 12 000 other scoped spans alive', async () => {
    world = await createWorld({ config: SMALL, maxLiveRuns: 50_000 });
    const trunk = world.tracer.startSpan('session');
    const inTrunk = trace.setSpan(ROOT_CONTEXT, trunk);
    const runA = runRoot(world.tracer, 'run-a', inTrunk);
    const runB = runRoot(world.tracer, 'run-b', inTrunk);
    const others: Span[] = [];
    for (let i = 0; i < 12_000; i += 1) others.push(runRoot(world.tracer, `other-${i}`));
    // SMALL: the third identical call warns.
    repeatRead(world.tracer, byContextOnly(runA), 3);
    const [firstInB] = repeatRead(world.tracer, byContextOnly(runB), 1);
    expect(firstInB).toBeUndefined();
    expect(world.loopEvents.map((event) => event.runId)).toEqual(['run-a']);
    for (const span of [...others, runA, runB, trunk]) span.end();
  });

  it('children of live tool spans find their run through the tool span’s id, however many tool spans are live', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-t');
    const inRun = trace.setSpan(ROOT_CONTEXT, root);
    // More tool spans in flight than the guard keeps among its newest: the first ones move out.
    const delegates = liveDelegates(world, inRun, 20);
    // SMALL: the third identical call warns, which it does only when all three are in run-t.
    const read = (path: string, under: Span) =>
      toolCall(world!.tracer, {
        tool: 'read',
        args: JSON.stringify({ path }),
        result: '"same"',
        parent: byContextOnly(under),
      });
    read('/a.txt', delegates[0]);
    read('/a.txt', delegates[19]);
    read('/a.txt', delegates[3]);
    read('/b.txt', delegates[15]);
    read('/b.txt', delegates[5]);
    read('/b.txt', delegates[17]);
    expect(world.loopEvents.map((event) => [event.level, event.runId])).toEqual([
      ['warning', 'run-t'],
      ['warning', 'run-t'],
    ]);
    for (const span of delegates) span.end();
    // Once its tool span ended, a child under its span context falls back to the trace's run.
    read('/a.txt', delegates[0]);
    expect(world.loopEvents).toHaveLength(2);
    root.end();
  });

  it('tool spans beyond the newest eight leave nothing by span id once they end, in whatever order', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-t');
    const traceId = root.spanContext().traceId;
    const inRun = trace.setSpan(ROOT_CONTEXT, root);
    const delegates = liveDelegates(world, inRun, 12);
    // The run of calls under a span's context alone: three identical reads (SMALL: the third
    // warns), of a path of their own, and the run of that warning (`trace`: the trace's run).
    let probes = 0;
    const runUnder = (span: Span) => {
      const before = world!.loopEvents.length;
      for (let k = 0; k < 3; k += 1)
        toolCall(world!.tracer, {
          tool: 'read',
          args: JSON.stringify({ path: `/probe-${probes}` }),
          result: '"same"',
          parent: byContextOnly(span),
        });
      probes += 1;
      return world!.loopEvents.slice(before).map((event) => (event.runId === traceId ? 'trace' : event.runId));
    };
    const all = delegates.map((_, i) => i);
    // Live, the oldest moved out of the newest (and each probe's own tool spans push out more).
    for (const i of all) expect(runUnder(delegates[i]), `live delegate ${i}`).toEqual(['run-t']);
    // Some end while the others are live, moved out and newest alike; then the rest, newest first.
    const firstEnded = [0, 11, 5, 2, 8, 1];
    const thenEnded = all.filter((i) => !firstEnded.includes(i)).reverse();
    for (const i of firstEnded) delegates[i].end();
    for (const i of firstEnded) expect(runUnder(delegates[i]), `ended delegate ${i}`).toEqual(['trace']);
    for (const i of thenEnded) expect(runUnder(delegates[i]), `live delegate ${i}`).toEqual(['run-t']);
    for (const i of thenEnded) delegates[i].end();
    // Nothing of any of them is left by span id: every child of theirs is in the trace's run.
    for (const i of all) expect(runUnder(delegates[i]), `ended delegate ${i}`).toEqual(['trace']);
    root.end();
  });

  it('a sub-agent under a span-context-only tool span in its trace’s default run opens a run of its own', async () => {
    world = await createWorld({ config: SMALL });
    const session = world.tracer.startSpan('session');
    const delegate = world.tracer.startSpan(
      'execute_tool delegate',
      {
        attributes: {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'delegate',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{}',
        },
      },
      trace.setSpan(ROOT_CONTEXT, session),
    );
    // The tool span's scope is the trace's default run, which a wrapper of its context does not
    // pass on (as for any span in that scope): the agent span starts its own run.
    const agent = world.tracer.startSpan(
      'invoke_agent helper',
      { attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' } },
      byContextOnly(delegate),
    );
    repeatRead(world.tracer, agent, 3);
    const { traceId, spanId } = agent.spanContext();
    expect(world.loopEvents.map((event) => event.runId)).toEqual([`${traceId}/${spanId}`]);
    for (const span of [agent, delegate, session]) span.end();
  });
});
