import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { useAsyncContext } from '../harness/guard.js';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { mastraAgent } from '../harness/mastra-agent.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';

afterAll(useAsyncContext());

describe('what Mastra + @mastra/otel-bridge emits for an agent run', () => {
  it('tool spans start bare as "tool: \'<name>\'" and become GenAI execute_tool spans only at end', async () => {
    const recorder = new SpanRecorder();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [recorder] }));
    const body = new ToolBody('loop');
    await mastraAgent(body).generate('Where is order 42?', { maxSteps: 3 });
    writeProbeReport('mastra.md', lifecycleReport('Mastra Agent.generate + OtelBridge, 3 steps', recorder.spans));
    const tools = recorder.spans.filter((span) => span.atEnd?.['mastra.span.type'] === 'tool_call');
    expect(tools.length).toBe(3);
    expect(tools[0].name).toBe(`tool: '${TOOL_NAME}'`);
    expect(tools[0].nameAtEnd).toBe(`execute_tool ${TOOL_NAME}`);
    expect(tools[0].atStart).toEqual({});
    expect(tools[0].atEnding).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': TOOL_NAME,
      'gen_ai.tool.call.id': 'call-0',
      'gen_ai.tool.call.arguments': '{"orderId":"order-42"}',
      'gen_ai.tool.call.result': 'status: pending',
    });
    const [agentRun] = recorder.spans;
    expect(agentRun.nameAtEnd).toBe('invoke_agent order-agent');
    expect(agentRun.atEnd).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'order-agent' });
    expect(agentRun.atEnd?.['gen_ai.conversation.id']).toBeUndefined();
    expect(tools.every((span) => span.atEnd?.['mastra.metadata.runId'] === agentRun.atEnd?.['mastra.metadata.runId'])).toBe(true);
    expect(new Set(recorder.spans.map((span) => span.traceId)).size).toBe(1);
  });
});
