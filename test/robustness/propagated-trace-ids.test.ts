/**
 * A run with no run id is scoped by its trace, and a remote caller chooses the trace id
 * through `traceparent`. Calls sent under a victim's trace id must not count toward the
 * victim's run, and runs opened by remote requests must be released when the request's local
 * entry span ends.
 */
import { ROOT_CONTEXT, SpanKind, trace, type Span } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, remoteParent, repeatRead, resetGlobals, SMALL, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

const VICTIM_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** The server span a request handler starts under the caller's propagated context. */
function request(w: World, traceId: string, callerSpanId: string): Span {
  return w.tracer.startSpan('POST /agent', { kind: SpanKind.SERVER }, remoteParent(traceId, callerSpanId));
}

describe('trace-scoped runs and propagated trace ids', () => {
  it("an attacker's calls under the victim's trace id do not count toward the victim's run", async () => {
    world = await createWorld({ config: SMALL });
    const attacker = request(world, VICTIM_TRACE, '00f067aa0ba902b7');
    repeatRead(world.tracer, attacker, 2);
    const victim = request(world, VICTIM_TRACE, '00f067aa0ba902b8');
    const [first, second] = repeatRead(world.tracer, victim, 2);
    expect(first).toBeUndefined();
    expect(second).not.toBe('critical');
    victim.end();
    attacker.end();
  });

  it('one request still keeps its own history: its loop is found', async () => {
    world = await createWorld({ config: SMALL });
    const handler = request(world, VICTIM_TRACE, '00f067aa0ba902b9');
    expect(repeatRead(world.tracer, handler, 4)).toEqual([undefined, undefined, 'warning', 'critical']);
    handler.end();
  });

  it('runs opened by remote requests with fresh trace ids are released when the request ends', async () => {
    world = await createWorld({ config: SMALL, maxLiveRuns: 100 });
    for (let i = 0; i < 1000; i += 1) {
      const traceId = (i + 1).toString(16).padStart(32, '0');
      const handler = request(world, traceId, '00f067aa0ba902b7');
      repeatRead(world.tracer, trace.setSpan(ROOT_CONTEXT, handler), 1);
      handler.end();
    }
    const stats = world.processor.getStats();
    expect(stats.liveRuns).toBe(0);
    expect(stats.releasedRuns.capacity).toBe(0);
  });
});
