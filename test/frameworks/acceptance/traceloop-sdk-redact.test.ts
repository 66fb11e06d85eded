import { beforeAll, describe, expect, it } from 'vitest';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';

let pipeline: TraceloopPipeline;
beforeAll(async () => {
  pipeline = await traceloopPipeline({ redactContent: true });
});

describe('@traceloop/node-server-sdk pipeline with redactContent', () => {
  it.fails('no raw tool input or output is exported (fails today: redaction runs in onEnding, which SDK 2.0.1 never calls, after the span was handed to the exporter)', async () => {
    const run = await pipeline.run('clean');
    const tools = run.harness.exported().filter(run.isCallSpan);
    expect(tools.length).toBe(30);
    for (const span of tools) {
      expect(span.attributes['traceloop.entity.input']).toBeUndefined();
      expect(span.attributes['traceloop.entity.output']).toBeUndefined();
    }
  });
});
