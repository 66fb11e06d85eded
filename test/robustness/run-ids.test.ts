/**
 * One run has one id however it is named: the adapters, `runSignal` and `traceRun` read run
 * ids the same way (a string, trimmed, or a finite number as its decimal text), so the signal
 * asked for with the id an application holds is the one its run aborts.
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolLoopBlockedError } from '../../src/index.js';
import { createWorld, resetGlobals, sc, SMALL, toolCall, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** An AI SDK `generateText` call whose tool calls repeat, with `metadata.runId` as the application set it. */
function aiSdkLoop(w: World, runId: unknown, calls: number): void {
  const metadata = { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: runId as number };
  const root = w.tracer.startSpan('ai.generateText', {
    attributes: { [sc.ATTR_AI_OPERATION_ID]: 'ai.generateText', ...metadata },
  });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 0; i < calls; i += 1) {
    const span = w.tracer.startSpan(
      'ai.toolCall',
      {
        attributes: {
          [sc.ATTR_AI_OPERATION_ID]: 'ai.toolCall',
          [sc.ATTR_AI_TOOL_CALL_NAME]: 'search',
          [sc.ATTR_AI_TOOL_CALL_ARGS]: '{"q":"same"}',
          ...metadata,
        },
      },
      parent,
    );
    span.setAttribute(sc.ATTR_AI_TOOL_CALL_RESULT, '"no results"');
    span.end();
  }
  root.end();
}

describe('run ids', () => {
  it('runSignal(42) is the signal of the AI SDK run whose metadata.runId is 42', async () => {
    world = await createWorld({ config: SMALL, abortOnCritical: true });
    const asNumber = world.processor.runSignal(42);
    expect(world.processor.runSignal('42')).toBe(asNumber);
    expect(world.processor.runSignal(' 42 ')).toBe(asNumber);
    aiSdkLoop(world, 42, 4);
    expect(world.loopEvents.map((event) => `${event.level}:${event.runId}`)).toEqual(['warning:42', 'critical:42']);
    expect(asNumber.aborted).toBe(true);
    expect(asNumber.reason).toBeInstanceOf(ToolLoopBlockedError);
  });

  it('a numeric tool_loop.run_id and its text are one run', async () => {
    world = await createWorld({ config: SMALL });
    const roots: Span[] = [7, '7'].map((runId) =>
      world!.tracer.startSpan('agent run', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } }),
    );
    const verdicts = [0, 1, 0, 1].map(
      (i) =>
        toolCall(world!.tracer, { tool: 'read', args: '{"p":1}', result: '"same"', parent: roots[i] }).verdictAtStart,
    );
    for (const root of roots) root.end();
    expect(verdicts).toEqual([undefined, undefined, 'warning', 'critical']);
  });

  it('an id that names no run gets a signal that never aborts, and a warning', async () => {
    world = await createWorld({ config: SMALL });
    for (const bad of [undefined, '  ', Number.NaN, {}] as unknown as number[]) {
      expect(world.processor.runSignal(bad).aborted).toBe(false);
    }
    expect(world.diagLines.filter((line) => line.includes('a run id is a non-blank string'))).toHaveLength(4);
  });
});
