/**
 * Row 10: pre-computed `tool_loop.args_hash` / `tool_loop.result_hash` attributes decide
 * verdicts ("wins over" the raw content), and trace ids arrive from callers through
 * `traceparent`. SECURITY.md must say who has to be trusted for each input, and what each hook
 * does when something fails; this suite keeps that statement from going missing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, runRoot, toolCall, SMALL } from './harness.js';

const security = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');

function section(title: RegExp): string {
  const start = security.search(title);
  expect(start, `SECURITY.md has a section matching ${String(title)}`).toBeGreaterThanOrEqual(0);
  const rest = security.slice(start + 1);
  const next = rest.search(/\n## /);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('SECURITY.md trust model', () => {
  it('names who must be trusted for pre-hashed attributes and propagated trace ids', () => {
    const trust = section(/\n## Trust model/);
    for (const input of ['tool_loop.args_hash', 'tool_loop.result_hash', 'traceparent', 'tool_loop.run_id'])
      expect(trust).toContain(input);
  });

  it('states, per hook, what happens on failure', () => {
    const failures = section(/\n## What happens when something fails/);
    for (const hook of ['onStart', 'onEnding', 'onEnd', 'onLoopEvent', 'onAbort', 'meterProvider', 'configFile'])
      expect(failures).toContain(hook);
  });
});

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
