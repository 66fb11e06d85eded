import { setSession } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { context } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { useAsyncContext } from '../harness/guard.js';
import { langGraphAgent } from '../harness/langgraph-agent.js';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';

afterAll(useAsyncContext());

describe('what OpenInference emits for a LangGraph createReactAgent run', () => {
  it('TOOL spans start bare; tool name, input, output and session.id are set before end', async () => {
    const recorder = new SpanRecorder();
    const provider = new BasicTracerProvider({ spanProcessors: [recorder] });
    const instrumentation = new LangChainInstrumentation();
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument(CallbackManagerModule);
    const body = new ToolBody('loop');
    const agent = langGraphAgent(body);
    await context.with(setSession(context.active(), { sessionId: 'session-1' }), () =>
      agent.invoke({ messages: [new HumanMessage('Where is order 42?')] }, { recursionLimit: 7 }).catch(() => undefined),
    );
    writeProbeReport('langgraph-openinference.md', lifecycleReport('LangGraph createReactAgent + OpenInference, 3 tool calls', recorder.spans));
    const toolSpans = recorder.spans.filter((span) => span.atEnd?.['openinference.span.kind'] === 'TOOL');
    expect(toolSpans.length).toBeGreaterThanOrEqual(2);
    const [first] = toolSpans;
    expect(first.name).toBe(TOOL_NAME);
    expect(Object.keys(first.atStart)).toEqual([]);
    expect(first.atEnd).toMatchObject({ 'openinference.span.kind': 'TOOL', 'tool.name': TOOL_NAME, 'session.id': 'session-1' });
    expect(first.atEnd?.['input.value']).toBeTypeOf('string');
    expect(first.atEnd?.['output.value']).toBeTypeOf('string');
    expect(new Set(recorder.spans.map((span) => span.traceId)).size).toBe(1);
  });
});
