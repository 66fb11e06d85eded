/**
 * A meter provider that throws must not stop the other outputs. The loop-event counter,
 * the callbacks, the span events and the run aborts are independent: one failing never stops
 * another, and a meter provider that cannot hand out a counter still leaves a working processor.
 */
import type { Meter, MeterProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { markCompactionRetry, ToolLoopBlockedError, traceRun, traceToolCall } from '../../src/index.js';
import { createWorld, repeatRead, resetGlobals, runRoot, SMALL, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** A meter provider whose counters throw on every `add`. */
function throwingCounters(): MeterProvider {
  const meter = {
    createCounter: () => ({
      add: () => {
        throw new Error('counter broke');
      },
    }),
  } as unknown as Meter;
  return { getMeter: () => meter };
}

describe('a counter whose add() throws', () => {
  it('still calls onLoopEvent and aborts the run with abortOnCritical', async () => {
    world = await createWorld({ config: SMALL, meterProvider: throwingCounters(), abortOnCritical: true });
    const root = runRoot(world.tracer, 'run-1');
    const signal = world.processor.runSignal('run-1');
    const verdicts = repeatRead(world.tracer, root, 4);
    root.end();
    expect(verdicts.at(-1)).toBe('critical');
    // SMALL: the third identical call warns, the fourth is critical.
    expect(world.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical']);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    expect(world.diagLines.some((line) => line.includes('counter broke'))).toBe(true);
  });

  it('still aborts a run whose loop persists after compaction, and calls onAbort', async () => {
    world = await createWorld({
      config: { tools: { loopDetection: { postCompactionGuard: { windowSize: 2 } } } },
      meterProvider: throwingCounters(),
    });
    const tracer = world.tracer;
    const outcome = traceRun(tracer, { runId: 'compacted' }, async ({ signal }) => {
      markCompactionRetry(tracer);
      for (let i = 0; i < 2; i += 1) await traceToolCall(tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
      return signal.aborted;
    });
    await expect(outcome).rejects.toMatchObject({ code: 'compaction_loop_persisted' });
    expect(world.aborts).toHaveLength(1);
  });
});

describe('a meter provider that cannot hand out a counter', () => {
  it.each([
    [
      'getMeter throws',
      {
        getMeter: () => {
          throw new Error('no meter');
        },
      },
    ],
    [
      'createCounter throws',
      {
        getMeter: () => ({
          createCounter: () => {
            throw new Error('no counter');
          },
        }),
      },
    ],
  ])('%s: create() resolves, warns, and detection works', async (_name, provider) => {
    world = await createWorld({ config: SMALL, meterProvider: provider as unknown as MeterProvider });
    expect(world.diagLines.some((line) => /meter|counter/i.test(line))).toBe(true);
    const root = runRoot(world.tracer, 'run-2');
    expect(repeatRead(world.tracer, root, 4).at(-1)).toBe('critical');
    root.end();
  });
});
