/**
 * `redactContent` rewrites the guard's log lines that name an unavailable tool. That rewriting
 * is linear in the line, whatever the line holds: a tool name made of the very phrase it looks
 * for costs no more than any other (the unit test of `redactingLogger` checks the scan itself on
 * a line longer than any tool name can make it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, runRoot, SMALL, toolCall, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

describe('log-line redaction', () => {
  it('judges calls named with 324 KB of "attempted unavailable tool " as fast as any other', async () => {
    world = await createWorld({ config: SMALL, redactContent: true });
    const tool = 'attempted unavailable tool '.repeat(12_000);
    const root = runRoot(world.tracer, 'run-1');
    const started = performance.now();
    const verdicts = [1, 2, 3].map(
      () => toolCall(world!.tracer, { tool, args: '{"q":1}', result: '"same"', parent: root }).verdictAtStart,
    );
    const elapsed = performance.now() - started;
    root.end();
    expect(verdicts).toEqual([undefined, undefined, 'warning']);
    expect(world.diagLines.some((line) => line.startsWith('tool-loop-guard Loop warning for attempted'))).toBe(true);
    // Milliseconds here; ten seconds when the redaction was quadratic and the name unbounded.
    expect(elapsed).toBeLessThan(2000);
  });
});
