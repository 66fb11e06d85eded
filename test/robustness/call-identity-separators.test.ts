/**
 * History keys join the tool name and the arguments hash. A tool name containing NUL
 * (or a pre-computed `tool_loop.args_hash` containing one) must not make two different
 * (tool, arguments) pairs collide.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, runRoot, SMALL, toolCall, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

describe('NUL in tool names and pre-computed hashes', () => {
  it('("read\\0x", "h") and ("read", "x\\0h") are different calls', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-nul');
    const verdicts: unknown[] = [];
    for (let i = 0; i < 2; i += 1)
      verdicts.push(
        toolCall(world.tracer, { tool: 'read\u0000x', argsHash: 'h', resultHash: 'r', parent: root }).verdictAtStart,
      );
    for (let i = 0; i < 2; i += 1)
      verdicts.push(
        toolCall(world.tracer, { tool: 'read', argsHash: 'x\u0000h', resultHash: 'r', parent: root }).verdictAtStart,
      );
    root.end();
    expect(verdicts).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('pairs built from NUL, colons and backslashes never collide with one another', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-nul-mix');
    // Distinct args hashes: the detectors that compare hashes alone (ping_pong) see distinct calls too.
    const pairs: Array<[string, string]> = [
      ['read\u0000x', 'h'],
      ['read', 'x\u0000h'],
      ['read\\', '0x\u0000h\u0000'],
      ['read:x', 'h\\'],
      ['read', 'x:h'],
      ['read\\c', 'x\u0000h\\0'],
      ['read', 'read:x'],
      ['read:x', ''],
    ];
    const verdicts: unknown[] = [];
    // Each pair twice: two pairs that shared a key would make the later one warn (SMALL warns at the third).
    for (const [tool, argsHash] of [...pairs, ...pairs])
      verdicts.push(toolCall(world.tracer, { tool, argsHash, resultHash: 'r', parent: root }).verdictAtStart);
    root.end();
    expect(verdicts.filter((verdict) => verdict !== undefined)).toEqual([]);
  });

  it('control: the same pair repeated is one call', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-nul-control');
    const verdicts: unknown[] = [];
    for (let i = 0; i < 3; i += 1)
      verdicts.push(
        toolCall(world.tracer, { tool: 'read\u0000x', argsHash: 'h', resultHash: 'r', parent: root }).verdictAtStart,
      );
    root.end();
    expect(verdicts).toEqual([undefined, undefined, 'warning']);
  });
});
