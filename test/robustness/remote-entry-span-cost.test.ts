/**
 * A request span under a propagated context that never ends (a handler that crashed before
 * ending it) keeps its entry run's scope until the span-id bound drops it. What one costs is
 * what SECURITY.md states for that bound: this keeps the statement true.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** What SECURITY.md gives as the most a never-ended remote-entry span keeps, in bytes. */
const DOCUMENTED_BYTES = 320;

describe('a never-ended remote-entry span', () => {
  it(`keeps at most ${DOCUMENTED_BYTES} bytes once the application let go of it`, async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    world = await createWorld();
    const tracer = world.tracer;
    const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');
    const open = (from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        const ids = { traceId: hex(i + 1, 32), spanId: hex(i + 1, 16), traceFlags: 1, isRemote: true };
        tracer.startSpan('request', {}, trace.setSpanContext(ROOT_CONTEXT, ids));
      }
    };
    open(0, 1000);
    gc();
    const before = process.memoryUsage().heapUsed;
    const spans = 100_000;
    open(1000, 1000 + spans);
    gc();
    const perSpan = (process.memoryUsage().heapUsed - before) / spans;
    expect(perSpan).toBeGreaterThan(100);
    expect(perSpan).toBeLessThan(DOCUMENTED_BYTES);
  });
});
