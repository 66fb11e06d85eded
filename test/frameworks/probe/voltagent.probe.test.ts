import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';
import { voltAgent, voltAgentObservability } from '../voltagent/voltagent-agent.js';

describe('what VoltAgent emits for an agent run', () => {
  it('tool spans carry name, call id and JSON arguments from their start; the filter forwards no onEnding; aborts keep only the message', async () => {
    const recorder = new SpanRecorder();
    const observability = voltAgentObservability([recorder]);
    const body = new ToolBody('loop');
    const controller = new AbortController();
    const agent = voltAgent(body, observability, async (args) => {
      if (body.executions === 2) controller.abort(new Error('our reason'));
      return body.run(args);
    });
    const outer = trace.getTracer('app').startSpan('app request');
    const error = await context
      .with(trace.setSpan(context.active(), outer), () =>
        agent.generateText('Where is order 42?', {
          conversationId: 'conv-1',
          maxSteps: 5,
          abortSignal: controller.signal,
        }),
      )
      .then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
    outer.end();
    await observability.forceFlush();
    writeProbeReport(
      'voltagent.md',
      lifecycleReport('VoltAgent generateText, aborted in the 3rd tool call', recorder.spans),
    );

    // The run rejects with VoltAgent's AbortError: the reason's message as a string, not the reason.
    expect(error).toMatchObject({ name: 'AbortError', reason: 'our reason', message: 'Operation aborted: our reason' });
    const tools = recorder.spans.filter((span) => span.atStart['span.type'] === 'tool');
    expect(tools).toHaveLength(3);
    expect(tools[0].name).toBe(`tool.execution:${TOOL_NAME}`);
    expect(tools[0].atStart).toMatchObject({
      'conversation.id': 'conv-1',
      'entity.type': 'agent',
      'entity.id': 'order-agent',
      'tool.name': TOOL_NAME,
      'tool.call.id': 'call-0',
      input: '{"orderId":"order-42"}',
    });
    expect(typeof tools[0].atStart['operation.id']).toBe('string');
    expect(tools[0].atEnd).toMatchObject({ output: 'status: pending' });
    // Its SDK (sdk-trace-node 2.12) calls onEnding, but the span filter around each appended processor drops it.
    expect(recorder.spans.every((span) => span.atEnding === undefined)).toBe(true);
    // The agent's root span starts a new trace, whatever span is active around the call.
    const [root] = recorder.spans.filter((span) => span.atStart['agent.state'] === 'running');
    expect(root.parentSpanId).toBeUndefined();
    expect(root.atStart['conversation.id']).toBe('conv-1');
    expect(new Set(recorder.spans.map((span) => span.traceId))).toEqual(new Set([root.traceId]));
    expect(root.atEnd).toMatchObject({
      'agent.state': 'cancelled',
      'cancellation.reason': 'Operation aborted: our reason',
    });
  });
});
