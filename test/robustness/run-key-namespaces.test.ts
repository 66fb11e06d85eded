/**
 * Explicit run ids (`tool_loop.run_id`, chosen by the application or a caller) and the
 * keys derived for id-less runs (the trace, or an adapter's run span) live in separate
 * namespaces: a run id that equals another run's derived key must not merge the histories.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, repeatRead, resetGlobals, runRoot, type World, SMALL } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

describe('explicit and derived run keys', () => {
  it("a run id equal to another run's trace id starts its own history", async () => {
    world = await createWorld({ config: SMALL });
    const traceScoped = world.tracer.startSpan('trace-scoped agent');
    repeatRead(world.tracer, traceScoped, 2);
    const explicit = runRoot(world.tracer, traceScoped.spanContext().traceId);
    expect(repeatRead(world.tracer, explicit, 1)).toEqual([undefined]);
    explicit.end();
    traceScoped.end();
  });

  it("a run id equal to an id-less run span's derived key starts its own history", async () => {
    world = await createWorld({ config: SMALL });
    // The AI SDK's generateText span opens an id-less run of its own.
    const sdkRun = world.tracer.startSpan('ai.generateText', { attributes: { 'ai.operationId': 'ai.generateText' } });
    repeatRead(world.tracer, sdkRun, 2);
    const { traceId, spanId } = sdkRun.spanContext();
    const explicit = runRoot(world.tracer, `${traceId}/${spanId}`);
    expect(repeatRead(world.tracer, explicit, 1)).toEqual([undefined]);
    explicit.end();
    sdkRun.end();
  });

  it('control: the same explicit run id in two root spans is one run', async () => {
    world = await createWorld({ config: SMALL });
    const first = runRoot(world.tracer, 'job-1');
    repeatRead(world.tracer, first, 2);
    const second = runRoot(world.tracer, 'job-1');
    expect(repeatRead(world.tracer, second, 2)).toEqual(['warning', 'critical']);
    second.end();
    first.end();
  });
});
