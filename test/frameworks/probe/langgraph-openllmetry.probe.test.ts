import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { LangChainInstrumentation } from '@traceloop/instrumentation-langchain';
import { afterAll, describe, expect, it } from 'vitest';
import { useAsyncContext } from '../harness/guard.js';
import { langGraphAgent } from '../harness/langgraph-agent.js';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody } from '../harness/scenario.js';

afterAll(useAsyncContext());

describe('what OpenLLMetry (@traceloop/instrumentation-langchain) emits for a LangGraph run', () => {
  it('tool spans are task spans named after the tool class, with the entity input and output', async () => {
    const recorder = new SpanRecorder();
    const provider = new BasicTracerProvider({ spanProcessors: [recorder] });
    const instrumentation = new LangChainInstrumentation();
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument({ callbackManagerModule: CallbackManagerModule });
    const body = new ToolBody('loop');
    await langGraphAgent(body)
      .invoke({ messages: [new HumanMessage('Where is order 42?')] }, { recursionLimit: 7 })
      .catch(() => undefined);
    writeProbeReport('langgraph-openllmetry.md', lifecycleReport('LangGraph createReactAgent + @traceloop/instrumentation-langchain, 3 tool calls', recorder.spans));
    const toolSpans = recorder.spans.filter((span) => span.atEnd?.['gen_ai.operation.name'] === 'execute_tool');
    expect(toolSpans.length).toBeGreaterThanOrEqual(2);
    expect(toolSpans[0].atEnd?.['gen_ai.tool.name']).toBeUndefined();
    expect(toolSpans[0].atEnd).toMatchObject({ 'traceloop.span.kind': 'task' });
  });
});
