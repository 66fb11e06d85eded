import { beforeAll, describe, expect, it } from 'vitest';
import { traceloopPipeline, type TraceloopPipeline } from '../harness/traceloop-guard.js';

let pipeline: TraceloopPipeline;
beforeAll(async () => {
  pipeline = await traceloopPipeline({ redactContent: true });
});

describe('@traceloop/node-server-sdk pipeline with redactContent, exporter wrapped', () => {
  it('no raw tool input or output is exported (the wrapped exporter applies the redaction onEnding would have)', async () => {
    const run = await pipeline.run('clean');
    const tools = run.harness.exported().filter(run.isCallSpan);
    expect(tools.length).toBe(30);
    for (const span of tools) {
      expect(span.attributes['traceloop.entity.input']).toBeUndefined();
      expect(span.attributes['traceloop.entity.output']).toBeUndefined();
    }
  });
});
