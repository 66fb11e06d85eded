import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';
import { byStart } from '../harness/scenario.js';

let pipeline: TraceloopPipeline;
const processWarnings: string[] = [];
beforeAll(async () => {
  vi.spyOn(process, 'emitWarning').mockImplementation((warning) => void processWarnings.push(String(warning)));
  pipeline = await traceloopPipeline({ redactContent: true });
});
beforeEach(() => pipeline.reset());
afterAll(() => {
  vi.restoreAllMocks();
});

describe('@traceloop/node-server-sdk pipeline with redactContent, guard passed as initialize({ exporter, processor })', () => {
  it('no raw tool input or output is exported (each span is redacted as it ends, before the SDK exports it)', async () => {
    const run = await pipeline.run('clean');
    const tools = run.harness.exported().filter(run.isCallSpan);
    expect(tools.length).toBe(30);
    for (const span of tools) {
      expect(span.attributes['traceloop.entity.input']).toBeUndefined();
      expect(span.attributes['traceloop.entity.output']).toBeUndefined();
    }
  });

  it('a loop is still stopped at call 21, with its events on the redacted exported spans', async () => {
    const run = await pipeline.run('loop');
    expect(run.body.executions).toBe(21);
    expect(run.outcome.error).toBeInstanceOf(Error);
    const tools = byStart(run.harness.exported().filter(run.isCallSpan));
    expect(tools).toHaveLength(21);
    expect(tools[10].events.map((event) => event.name)).toEqual(['tool_loop.warning']);
    expect(tools[20].events.map((event) => event.name)).toEqual(['tool_loop.blocked']);
    expect(JSON.stringify(tools.map((span) => span.attributes))).not.toContain('order-42');
  });

  it('nothing to warn about: no process warning from the guard', () => {
    expect(processWarnings.filter((warning) => warning.includes('onEnding'))).toEqual([]);
  });
});
