import { randomUUID } from 'node:crypto';
import { setSession } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { context } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { guardLangChainTools, traceRun, traceToolCall } from 'tool-loop-guard';
import { describe } from 'vitest';
import { blockingWrapperTest, nestedToolSpanTest, settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { instrumentedHarnesses } from '../harness/guard.js';
import { langGraphAgent, RECURSION_LIMIT } from '../harness/langgraph-agent.js';
import { ToolBody, TOOL_NAME, type LookupArgs, type Variant } from '../harness/scenario.js';

const instrumentation = new LangChainInstrumentation();
const open = instrumentedHarnesses(instrumentation, () => instrumentation.manuallyInstrument(CallbackManagerModule));

const openInferenceTool = (span: ReadableSpan): boolean => span.attributes['openinference.span.kind'] === 'TOOL';

interface Setup {
  /** `session`: `setSession` + `runSignal(sessionId)`; `traceRun`: the run opened by `traceRun`, its signal passed on. */
  readonly scope: 'session' | 'traceRun';
  /** Wrap the tool body in `traceToolCall`, or the tool in `guardLangChainTools`, to block a call before it runs. */
  readonly guardTool: boolean | 'guardLangChainTools';
  readonly abortOnCritical?: boolean;
}

async function runAgent(variant: Variant, setup: Setup): Promise<VariantRun> {
  const harness = await open({ abortOnCritical: setup.abortOnCritical ?? true });
  const body = new ToolBody(variant);
  const tracer = harness.provider.getTracer('agent');
  const execute = setup.guardTool === true ? (args: LookupArgs) => traceToolCall(tracer, { name: TOOL_NAME, args }, () => body.run(args)) : undefined;
  const agent = langGraphAgent(body, execute, setup.guardTool === 'guardLangChainTools' ? (tools) => guardLangChainTools(tools, { tracer }) : undefined);
  const sessionId = randomUUID();
  const invoke = (signal: AbortSignal) =>
    context.with(setSession(context.active(), { sessionId }), () =>
      agent.invoke({ messages: [new HumanMessage('Where is order 42?')] }, { recursionLimit: RECURSION_LIMIT, signal }),
    );
  const outcome = await settle(() =>
    setup.scope === 'traceRun' ? traceRun(tracer, { runId: sessionId }, ({ signal }) => invoke(signal)) : invoke(harness.processor.runSignal(sessionId)),
  );
  return { harness, body, outcome, isCallSpan: openInferenceTool };
}

describe('LangGraph createReactAgent + OpenInference, setSession + runSignal(sessionId)', () => {
  // session.id is set only as each span ends: the call's run is settled then, keyed by the session.
  variantTests({}, (variant) => runAgent(variant, { scope: 'session', guardTool: false }));
});

describe('LangGraph createReactAgent + OpenInference inside traceRun', () => {
  variantTests({}, (variant) => runAgent(variant, { scope: 'traceRun', guardTool: false }));
});

describe('LangGraph createReactAgent + OpenInference inside traceRun, traceToolCall inside the tool', () => {
  // The TOOL span (judged at end) and the execute_tool span started in its body (judged at
  // start) are one call: the inner span is judged and recorded, the TOOL span is not.
  variantTests({}, (variant) => runAgent(variant, { scope: 'traceRun', guardTool: true }));
  nestedToolSpanTest(undefined, () => runAgent('loop', { scope: 'traceRun', guardTool: true, abortOnCritical: false }));
});

describe('LangGraph createReactAgent + OpenInference inside traceRun, tools through guardLangChainTools', () => {
  blockingWrapperTest(() => runAgent('loop', { scope: 'traceRun', guardTool: 'guardLangChainTools', abortOnCritical: false }));
});
