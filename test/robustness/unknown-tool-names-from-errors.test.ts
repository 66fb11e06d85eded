/**
 * The unknown-tool name is taken from error text that the tool (or a remote service)
 * wrote. It must be bounded and copied — never a slice that keeps a huge error alive in the
 * history — and it is content: under `redactContent` it is not exported raw.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorld, resetGlobals, runRoot, sc, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

const UNKNOWN = {
  tools: {
    loopDetection: {
      enabled: true,
      unknownToolThreshold: 2,
      warningThreshold: 5,
      criticalThreshold: 6,
      globalCircuitBreakerThreshold: 7,
    },
  },
};

function failingCall(w: World, parent: Span, tool: string, message: string): ReadableSpan {
  const span = w.tracer.startSpan(
    `execute_tool ${tool}`,
    {
      attributes: {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
        [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"q":1}',
      },
    },
    trace.setSpan(ROOT_CONTEXT, parent),
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
  return span as unknown as ReadableSpan;
}

function exportedStrings(w: World): string[] {
  return w.exporter
    .getFinishedSpans()
    .flatMap((span) =>
      span.events.flatMap((event) =>
        Object.values(event.attributes ?? {}).filter((v): v is string => typeof v === 'string'),
      ),
    );
}

describe('unknown-tool names from error text', () => {
  it('a 1 MB name is bounded in the message and warning key, and not logged whole', async () => {
    world = await createWorld({ config: UNKNOWN });
    const name = 'x'.repeat(1024 * 1024);
    const root = runRoot(world.tracer, 'run-big-name');
    for (let i = 0; i < 3; i += 1) failingCall(world, root, 'web_search', `Unknown tool: ${name}`);
    root.end();
    expect(world.loopEvents.length).toBeGreaterThan(0);
    for (const event of world.loopEvents) {
      expect(event.message.length).toBeLessThan(1000);
      expect(event.warningKey.length).toBeLessThan(1000);
    }
    for (const value of exportedStrings(world)) expect(value.length).toBeLessThan(1000);
    for (const line of world.diagLines) expect(line.length).toBeLessThan(4000);
  });

  it('with redactContent, a name that differs from the called tool is not exported raw', async () => {
    world = await createWorld({ config: UNKNOWN, redactContent: true });
    const root = runRoot(world.tracer, 'run-redacted');
    for (let i = 0; i < 3; i += 1) failingCall(world, root, 'dispatch', 'Unknown tool: secret_internal_tool_name');
    root.end();
    expect(world.loopEvents.some((event) => event.detector === 'unknown_tool_repeat')).toBe(true);
    for (const value of exportedStrings(world)) expect(value).not.toContain('secret_internal_tool_name');
    // Callbacks get what is exported (a digest stands in), and diag never names it either.
    expect(JSON.stringify(world.loopEvents)).not.toContain('secret_internal_tool_name');
    expect(world.loopEvents.at(-1)?.warningKey).toMatch(/^unknown-tool:dispatch:unknown-tool-[0-9a-f]{8}$/);
    for (const line of world.diagLines) expect(line).not.toContain('secret_internal_tool_name');
  });

  it('with redactContent, a name equal to the called tool is kept (it is exported as gen_ai.tool.name anyway)', async () => {
    world = await createWorld({ config: UNKNOWN, redactContent: true });
    const root = runRoot(world.tracer, 'run-own-name');
    for (let i = 0; i < 3; i += 1) failingCall(world, root, 'dispatch', 'Unknown tool: dispatch');
    root.end();
    expect(world.loopEvents.at(-1)?.warningKey).toBe('unknown-tool:dispatch:dispatch');
  });

  it('huge error texts are not kept alive by the history', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    world = await createWorld({ config: UNKNOWN });
    const roots: Span[] = [];
    gc();
    const before = getHeapStatistics().used_heap_size;
    for (let run = 0; run < 8; run += 1) {
      const root = runRoot(world.tracer, `run-heap-${run}`);
      roots.push(root);
      // A fresh 8 MB text each time, with a lowercase name long enough for V8 to slice it.
      failingCall(
        world,
        root,
        'web_search',
        `Unknown tool: web_search_${run}_${'q'.repeat(20)}\n${'.'.repeat(8 * 1024 * 1024)}${run}`,
      );
    }
    // Pending exports hold their spans (and so the texts) until they complete.
    await world.provider.forceFlush();
    world.exporter.reset();
    gc();
    const grown = getHeapStatistics().used_heap_size - before;
    for (const root of roots) root.end();
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  });
});
