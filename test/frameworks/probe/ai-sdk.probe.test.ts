import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText as generateText7, isStepCount, tool as tool7 } from 'ai';
import { generateText as generateText5, stepCountIs as stepCountIs5, tool as tool5 } from 'ai5';
import { generateText as generateText6, stepCountIs as stepCountIs6, tool as tool6 } from 'ai6';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModelV2, scriptedModelV3, scriptedModelV4 } from '../harness/ai-sdk-models.js';
import { useAsyncContext } from '../harness/guard.js';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';

afterAll(useAsyncContext());

const inputSchema = z.object({ orderId: z.string() });

function recorded(): { recorder: SpanRecorder; provider: BasicTracerProvider } {
  const recorder = new SpanRecorder();
  return { recorder, provider: new BasicTracerProvider({ spanProcessors: [recorder] }) };
}

describe('what the Vercel AI SDK emits per tool call', () => {
  it('ai@5 ai.toolCall: name, call id and args at start; result set just before end', async () => {
    const { recorder, provider } = recorded();
    const body = new ToolBody('loop');
    await generateText5({
      model: scriptedModelV2('loop'),
      tools: { [TOOL_NAME]: tool5({ inputSchema, execute: async (args) => body.run(args) }) },
      prompt: 'probe',
      stopWhen: stepCountIs5(3),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('probe'), metadata: { runId: 'probe-run' } },
    });
    writeProbeReport('ai-sdk-5.md', lifecycleReport('ai@5 generateText, 3 steps', recorder.spans));
    const toolSpan = recorder.named(/^ai\.toolCall$/)[0];
    expect(toolSpan.atStart).toMatchObject({ 'ai.toolCall.name': TOOL_NAME, 'ai.toolCall.id': 'call-0', 'ai.toolCall.args': '{"orderId":"order-42"}', 'ai.telemetry.metadata.runId': 'probe-run' });
    expect(toolSpan.atStart['ai.toolCall.result']).toBeUndefined();
    expect(toolSpan.atEnd?.['ai.toolCall.result']).toBe('"status: pending"');
    expect(new Set(recorder.spans.map((span) => span.traceId)).size).toBe(1);
  });

  it('ai@6 ai.toolCall: the same shape as ai@5', async () => {
    const { recorder, provider } = recorded();
    const body = new ToolBody('loop');
    await generateText6({
      model: scriptedModelV3('loop'),
      tools: { [TOOL_NAME]: tool6({ inputSchema, execute: async (args) => body.run(args) }) },
      prompt: 'probe',
      stopWhen: stepCountIs6(3),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('probe'), metadata: { runId: 'probe-run' } },
    });
    writeProbeReport('ai-sdk-6.md', lifecycleReport('ai@6 generateText, 3 steps', recorder.spans));
    const toolSpan = recorder.named(/^ai\.toolCall$/)[0];
    expect(toolSpan.atStart).toMatchObject({ 'ai.toolCall.name': TOOL_NAME, 'ai.toolCall.id': 'call-0', 'ai.toolCall.args': '{"orderId":"order-42"}' });
    expect(toolSpan.atEnd?.['ai.toolCall.result']).toBe('"status: pending"');
  });

  it('ai@7 + @ai-sdk/otel execute_tool: GenAI attributes', async () => {
    const { recorder, provider } = recorded();
    const body = new ToolBody('loop');
    await generateText7({
      model: scriptedModelV4('loop'),
      tools: { [TOOL_NAME]: tool7({ inputSchema, execute: async (args) => body.run(args) }) },
      prompt: 'probe',
      stopWhen: isStepCount(3),
      telemetry: { functionId: 'probe-agent', integrations: [new OpenTelemetry({ tracer: provider.getTracer('probe') })] },
    });
    writeProbeReport('ai-sdk-7.md', lifecycleReport('ai@7 + @ai-sdk/otel generateText, 3 steps', recorder.spans));
    const toolSpan = recorder.named(/execute_tool/)[0];
    expect(toolSpan).toBeDefined();
    expect(toolSpan.atEnd?.['gen_ai.tool.name']).toBe(TOOL_NAME);
  });
});
