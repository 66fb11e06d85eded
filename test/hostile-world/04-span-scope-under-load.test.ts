/**
 * Row 4: children whose parent is only a span context (as after propagation inside the process,
 * or with instrumentations that hand spans on by context) find their run through the span id.
 * With many other scoped spans alive, that lookup must not silently fall back to the trace id
 * and merge two runs of one trace.
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
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
    const delegates = Array.from({ length: 20 }, (_, i) =>
      world!.tracer.startSpan(
        'execute_tool delegate',
        {
          attributes: {
            [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
            [sc.ATTR_GEN_AI_TOOL_NAME]: 'delegate',
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ task: i }),
          },
        },
        inRun,
      ),
    );
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
