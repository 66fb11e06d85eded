import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';
import { byStart } from '../harness/scenario.js';

let pipeline: TraceloopPipeline;
beforeAll(async () => {
  pipeline = await traceloopPipeline();
});
beforeEach(() => pipeline.reset());

describe('@traceloop/node-server-sdk withTool, guard passed as initialize({ processor }), exporter wrapped, inside traceRun', () => {
  variantTests({}, (variant) => pipeline.run(variant));

  it('the exported 21st tool span carries tool_loop.blocked and the critical verdict', async () => {
    const run = await pipeline.run('loop');
    expect(run.harness.events.find((event) => event.level === 'critical')).toBeDefined();
    const tools = byStart(run.harness.exported().filter(run.isCallSpan));
    expect(tools[20].events.map((event) => event.name)).toContain('tool_loop.blocked');
    expect(tools[20].attributes['tool_loop.verdict']).toBe('critical');
    expect(tools[10].events.map((event) => event.name)).toContain('tool_loop.warning');
  });
});
