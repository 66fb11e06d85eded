import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';
import { byStart } from '../harness/scenario.js';

let pipeline: TraceloopPipeline;
beforeAll(async () => {
  pipeline = await traceloopPipeline();
});
beforeEach(() => pipeline.reset());

const noOnEnding =
  "the SDK's own sdk-trace-base 2.0.1 has no onEnding and runs our processor after its exporting one: calls are judged in onEnd, nothing is added to exported spans";

describe('@traceloop/node-server-sdk withTool, guard passed as initialize({ processor }), inside traceRun', () => {
  variantTests({ loop: { reason: noOnEnding, failing: ['exported-events'] } }, (variant) => pipeline.run(variant));

  it.fails(`the exported 21st tool span carries tool_loop.blocked (fails today: ${noOnEnding})`, async () => {
    const run = await pipeline.run('loop');
    expect(run.harness.events.find((event) => event.level === 'critical')).toBeDefined();
    const tools = byStart(run.harness.exported().filter(run.isCallSpan));
    expect(tools[20].events.map((event) => event.name)).toContain('tool_loop.blocked');
  });
});
