import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';
import { byStart } from '../harness/scenario.js';

let pipeline: TraceloopPipeline;
const processWarnings: string[] = [];
beforeAll(async () => {
  vi.spyOn(process, 'emitWarning').mockImplementation((warning) => void processWarnings.push(String(warning)));
  pipeline = await traceloopPipeline();
});
beforeEach(() => pipeline.reset());
afterAll(() => {
  vi.restoreAllMocks();
});

describe('@traceloop/node-server-sdk withTool, guard passed as initialize({ exporter, processor }), inside traceRun', () => {
  variantTests({}, (variant) => pipeline.run(variant));

  it('the exported 21st tool span carries tool_loop.blocked and the critical verdict', async () => {
    const run = await pipeline.run('loop');
    expect(run.harness.events.find((event) => event.level === 'critical')).toBeDefined();
    const tools = byStart(run.harness.exported().filter(run.isCallSpan));
    expect(tools[20].events.map((event) => event.name)).toContain('tool_loop.blocked');
    expect(tools[20].attributes['tool_loop.verdict']).toBe('critical');
    expect(tools[10].events.map((event) => event.name)).toContain('tool_loop.warning');
  });

  it('nothing to warn about: no process warning from the guard', () => {
    expect(processWarnings.filter((warning) => warning.includes('onEnding'))).toEqual([]);
  });
});
