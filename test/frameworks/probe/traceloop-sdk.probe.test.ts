import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { forceFlush, initialize, withWorkflow } from '@traceloop/node-server-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';
import { OFFLINE, traceloopAgent } from '../harness/traceloop-agent.js';

const exporter = new InMemorySpanExporter();
const recorder = new SpanRecorder();
beforeAll(() => {
  initialize({ ...OFFLINE, exporter, processor: recorder });
});

function sdkTraceBaseVersionOf(packageName: string): string {
  const sdkRequire = createRequire(createRequire(import.meta.url).resolve(packageName));
  const main = sdkRequire.resolve('@opentelemetry/sdk-trace-base');
  return (sdkRequire(`${dirname(main.slice(0, main.indexOf('/build/')))}/sdk-trace-base/package.json`) as { version: string }).version;
}

describe('what the Traceloop SDK (initialize + withTool) emits and how it runs a user processor', () => {
  it('tool spans: <name>.tool; the SDK processor sets workflow name and entity path at start, withTool the entity attributes right after', async () => {
    await withWorkflow({ name: 'orders' }, () => traceloopAgent(new ToolBody('loop')).catch(() => undefined));
    writeProbeReport('traceloop-sdk.md', lifecycleReport('@traceloop/node-server-sdk withWorkflow + withTool', recorder.spans.slice(0, 4)));
    const tools = recorder.named(new RegExp(`^${TOOL_NAME}\\.tool$`));
    expect(tools.length).toBe(30);
    expect(tools[0].atStart).toEqual({ 'traceloop.workflow.name': 'orders', 'traceloop.entity.path': TOOL_NAME });
    expect(tools[0].atEnd).toMatchObject({
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': TOOL_NAME,
      'traceloop.entity.path': '',
      'traceloop.workflow.name': 'orders',
      'traceloop.entity.input': '{"args":[],"kwargs":{"orderId":"order-42"}}',
      'traceloop.entity.output': '"status: pending"',
    });
    expect(new Set(recorder.spans.map((span) => span.traceId)).size).toBe(1);
  });

  it('runs on its own sdk-trace-base 2.0.1, which never calls onEnding', () => {
    expect(sdkTraceBaseVersionOf('@traceloop/node-server-sdk')).toBe('2.0.1');
    expect(recorder.spans.every((span) => span.atEnding === undefined)).toBe(true);
  });

  it('appends the given processor after its own exporting one', async () => {
    await forceFlush();
    // Its processor's onStart copies the entity path from the context: it is on the span when
    // ours runs, so ours comes later in the list, and so does our onEnd (after it exported).
    const tools = recorder.named(new RegExp(`^${TOOL_NAME}\\.tool$`));
    expect(tools.every((span) => span.atStart['traceloop.entity.path'] === TOOL_NAME)).toBe(true);
    expect(exporter.getFinishedSpans().length).toBe(recorder.spans.length);
  });
});
