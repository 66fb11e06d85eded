import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  guardAiSdkTools,
  guardLangChainTools,
  guardMastraTools,
  ToolLoopBlockedError,
  traceRun,
  type GuardToolsOptions,
  toolLoopSystemNote,
} from '../../src/index.js';
import { createOtelHarness, installContextManager, LOW_THRESHOLDS, resetOtelGlobals } from '../helpers/otel-harness.js';

// The wrappers with the real AI SDK tool object, and classes shaped like LangChain's and
// Mastra's tools (the framework packages themselves are exercised in test/frameworks).
// LOW_THRESHOLDS: warning on the 3rd identical call, critical on the 5th.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

/** A StructuredTool's shape: `call` parses and runs the protected `_call`. */
class FakeStructuredTool {
  executions = 0;
  constructor(readonly name: string) {}
  protected _call(input: { id: number }): Promise<string> {
    this.executions += 1;
    return Promise.resolve(`order ${input.id}: pending`);
  }
  invoke(input: { id: number }, config?: unknown): Promise<unknown> {
    return (this as unknown as { _call: (i: unknown, r: unknown, c: unknown) => Promise<unknown> })._call(
      input,
      undefined,
      config,
    );
  }
}

const optionsWith = async (extra: Partial<GuardToolsOptions> = {}) => {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS });
  return { harness, options: { tracer: harness.tracer, ...extra } };
};

describe('framework tool wrappers', () => {
  it('guardAiSdkTools: blocked calls return the blocked result, the system note is appended to a string result', async () => {
    const { harness, options } = await optionsWith();
    let executions = 0;
    const tools = guardAiSdkTools(
      {
        lookup: tool({
          inputSchema: z.object({ id: z.number() }),
          execute: () => {
            executions += 1;
            return 'pending';
          },
        }),
      },
      options,
    );
    const results: unknown[] = [];
    const run = traceRun(harness.tracer, { runId: 'ai' }, async () => {
      for (let n = 0; n < 6; n += 1)
        results.push(await tools.lookup.execute?.({ id: 1 }, { toolCallId: `c${n}`, messages: [] }));
    });
    // The fifth call is the run's one recovery turn; the sixth, a second critical, ends the run.
    await expect(run).rejects.toBeInstanceOf(ToolLoopBlockedError);
    expect(results[5]).toMatchObject({ terminate: true, executionStarted: false });
    expect(executions).toBe(4);
    expect(results[0]).toBe('pending');
    expect(results[2]).toBe(`pending\n\n${toolLoopSystemNote(2)}`);
    expect(results[3]).toBe('pending');
    expect(results[4]).toMatchObject({ details: { status: 'blocked', deniedReason: 'tool-loop' } });
    // The appended note is not part of the outcome: the streak is unbroken and the call blocked.
    expect(harness.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical', 'critical']);
  });

  it('guardLangChainTools: copies of the tools whose _call is guarded; the model gets the blocked text blocks', async () => {
    const { harness, options } = await optionsWith();
    const original = new FakeStructuredTool('lookup');
    const [guarded] = guardLangChainTools([original], options);
    expect(guarded).toBeInstanceOf(FakeStructuredTool);
    expect(guarded).not.toBe(original);
    const results: unknown[] = [];
    await traceRun(harness.tracer, { runId: 'lc' }, async () => {
      for (let n = 0; n < 5; n += 1) results.push(await guarded.invoke({ id: 7 }, { toolCall: { id: `c${n}` } }));
    });
    expect(original.executions).toBe(4);
    expect(results[4]).toEqual([{ type: 'text', text: expect.stringContaining('CRITICAL') as string }]);
  });

  it('guardMastraTools with onBlocked: throw rejects a blocked call with ToolLoopBlockedError', async () => {
    const { harness, options } = await optionsWith({ onBlocked: 'throw', appendWarning: false });
    let executions = 0;
    const lookup = {
      id: 'lookup',
      execute: (input: { id: number }) => {
        executions += 1;
        return Promise.resolve(`order ${input.id}`);
      },
    };
    const tools = guardMastraTools({ lookup }, options);
    const results: unknown[] = [];
    await traceRun(harness.tracer, { runId: 'mastra' }, async () => {
      for (let n = 0; n < 5; n += 1)
        results.push(await tools.lookup.execute({ id: 3 }).catch((error: unknown) => error));
    });
    expect(executions).toBe(4);
    expect(results[2]).toBe('order 3');
    expect(results[4]).toBeInstanceOf(ToolLoopBlockedError);
    expect(lookup.execute).not.toBe(tools.lookup.execute);
  });

  it('leaves tools without an execute function as they are', async () => {
    const { options } = await optionsWith();
    const schemaOnly = { description: 'client-side tool' };
    expect(guardAiSdkTools({ schemaOnly }, options).schemaOnly).toBe(schemaOnly);
    expect(guardMastraTools({ schemaOnly }, options).schemaOnly).toBe(schemaOnly);
  });
});
