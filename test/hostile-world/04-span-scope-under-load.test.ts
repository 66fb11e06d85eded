/**
 * Row 4: children whose parent is only a span context (as after propagation inside the process,
 * or with instrumentations that hand spans on by context) find their run through the span id.
 * With many other scoped spans alive, that lookup must not silently fall back to the trace id
 * and merge two runs of one trace.
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, repeatRead, resetGlobals, runRoot, SMALL, type World } from './harness.js';

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
});
