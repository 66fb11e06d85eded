/**
 * `traceToolCallBatch` ends every span it started, whatever its members do: a body that throws
 * or a member that cannot even be admitted leaves no span open, so nothing is lost from the
 * export and no run waits forever on calls that never ran.
 */
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { traceToolCallBatch, type ToolCallBatchEntry } from '../../src/index.js';
import { createWorld, repeatRead, resetGlobals, runRoot, sc, SMALL, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

const IDLE_TTL_MS = 1000;

/** A world on a clock of its own; returns it and the function that moves the clock on. */
async function idleWorld(): Promise<{ world: World; advance: (ms: number) => void }> {
  let now = 0;
  const created = await createWorld({ config: SMALL, clock: () => now, runIdleTtlMs: IDLE_TTL_MS });
  return { world: created, advance: (ms) => void (now += ms) };
}

/** Runs the batch under a run root that stays open (so only the idle TTL can release the run). */
async function batchInOpenRun(w: World, runId: string, calls: ToolCallBatchEntry<unknown, string>[]) {
  const root = runRoot(w.tracer, runId);
  return context.with(trace.setSpan(ROOT_CONTEXT, root), () => traceToolCallBatch(w.tracer, calls));
}

function toolSpans(w: World): string[] {
  return w.exporter
    .getFinishedSpans()
    .filter((span) => span.attributes[sc.ATTR_GEN_AI_TOOL_NAME] !== undefined)
    .map((span) => String(span.attributes[sc.ATTR_GEN_AI_TOOL_NAME]));
}

describe('traceToolCallBatch', () => {
  it('ends the spans of the members after a body that throws, and the run can go idle', async () => {
    const setup = await idleWorld();
    world = setup.world;
    const ran: string[] = [];
    const member = (name: string, fail = false): ToolCallBatchEntry<unknown, string> => ({
      name,
      args: { name },
      execute: () => {
        ran.push(name);
        if (fail) throw new Error(`${name} failed`);
        return 'ok';
      },
    });
    await expect(batchInOpenRun(world, 'batch-run', [member('a', true), member('b'), member('c')])).rejects.toThrow(
      'a failed',
    );
    expect(ran).toEqual(['a']);
    expect(toolSpans(world).sort()).toEqual(['a', 'b', 'c']);
    // No call of the run is in flight any more: after the idle TTL, the next activity releases it.
    setup.advance(IDLE_TTL_MS + 1);
    repeatRead(world.tracer, runRoot(world.tracer, 'other-run'), 1);
    expect(world.processor.getStats().releasedRuns.idle).toBe(1);
  });

  it('ends the members already started when a later member cannot be admitted', async () => {
    world = await createWorld({ config: SMALL });
    const unreadable = {
      name: 'b',
      get args(): unknown {
        throw new Error('args unreadable');
      },
      execute: () => 'never',
    };
    const calls = [{ name: 'a', args: {}, execute: () => 'ok' }, unreadable];
    await expect(batchInOpenRun(world, 'admit-run', calls)).rejects.toThrow('args unreadable');
    expect(toolSpans(world)).toEqual(['a']);
  });
});
