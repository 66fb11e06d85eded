/**
 * Pre-computed `tool_loop.args_hash` / `tool_loop.result_hash` attributes decide verdicts (they
 * win over the raw content): whoever sets them decides the call identity, as SECURITY.md's trust
 * model says.
 */
import { describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, runRoot, toolCall, SMALL } from './harness.js';

describe('the documented behaviour of pre-hashed attributes', () => {
  it('a span producer that sets tool_loop.args_hash decides the call identity (as documented)', async () => {
    const world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-prehashed');
    const verdicts = ['{"a":1}', '{"b":2}', '{"c":3}'].map(
      (args) =>
        toolCall(world.tracer, { tool: 'read', args, argsHash: 'forced', resultHash: 'same', parent: root })
          .verdictAtStart,
    );
    root.end();
    expect(verdicts).toEqual([undefined, undefined, 'warning']);
    await world.shutdown();
    resetGlobals();
  });
});
