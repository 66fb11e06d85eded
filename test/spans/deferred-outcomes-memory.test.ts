/**
 * The deferred outcomes' memory bound holds for what they retain, not only for what they count:
 * an outcome hashed because the budget was full lets go of its raw result. Real spans from a real
 * provider go to the public processor; the heap is measured after full collections.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ToolLoopSpanProcessor } from '../../src/index.js';
import * as sc from '../../src/semconv.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  for (let i = 0; i < 3; i += 1) gc();
  return process.memoryUsage().heapUsed;
}

const MB = 1024 * 1024;

describe('deferred outcomes: memory', () => {
  it('holds about its 8 MiB of raw results however many large unique results the live runs keep', async () => {
    const processor = await ToolLoopSpanProcessor.create({ config: { tools: { loopDetection: { enabled: true } } } });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('deferred-outcomes-memory');
    const filler = 'a line of tool output\n'.repeat(4_600);
    const before = heapUsed();
    // 100 live runs of 10 unique calls, each with a ~100 KB result: ~100 MB of raw text in all.
    const roots = Array.from({ length: 100 }, (_, r) =>
      tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: `run-${r}` } }, ROOT_CONTEXT),
    );
    roots.forEach((root, r) => {
      for (let c = 0; c < 10; c += 1) {
        const span = tracer.startSpan(
          'execute_tool read',
          {
            attributes: {
              [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
              [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
              [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ path: `/run-${r}/file-${c}.ts` }),
            },
          },
          trace.setSpan(ROOT_CONTEXT, root),
        );
        // A flat string of its own (JSON.stringify builds one), as an instrumentation's would be.
        span.setAttribute(
          sc.ATTR_GEN_AI_TOOL_CALL_RESULT,
          JSON.stringify({ content: [{ type: 'text', text: `${r}/${c}\n${filler}` }] }),
        );
        span.end();
      }
    });
    const grown = heapUsed() - before;
    expect(processor.getStats().liveRuns).toBe(100);
    // 8 MiB counted at 2 bytes a character holds ~4 M characters; the rest is the runs' state.
    expect(grown).toBeLessThan(24 * MB);
    for (const root of roots) root.end();
    await provider.shutdown();
  });
});
