import { randomUUID } from 'node:crypto';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { LangChainInstrumentation } from '@traceloop/instrumentation-langchain';
import { guardLangChainTools, traceRun } from 'tool-loop-guard';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { blockingWrapperTest, settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { guardHarness, useAsyncContext, type GuardHarness } from '../harness/guard.js';
import { langGraphAgent, RECURSION_LIMIT } from '../harness/langgraph-agent.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

afterAll(useAsyncContext());
const instrumentation = new LangChainInstrumentation();
beforeAll(() => {
  instrumentation.manuallyInstrument({ callbackManagerModule: CallbackManagerModule });
});
const harnesses: GuardHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.provider.shutdown()));
});

const openLlmetryTool = (span: ReadableSpan): boolean =>
  span.attributes['traceloop.span.kind'] === 'task' && span.attributes['gen_ai.operation.name'] === 'execute_tool';

/**
 * OpenLLMetry parents every LangChain span to the active OTel span (without one each span is
 * its own trace), so the run is opened with `traceRun` and its signal passed to the graph.
 */
async function runAgent(variant: Variant, guard = false): Promise<VariantRun> {
  const harness = await guardHarness(guard ? { abortOnCritical: false } : {});
  harnesses.push(harness);
  instrumentation.setTracerProvider(harness.provider);
  const body = new ToolBody(variant);
  const tracer = harness.provider.getTracer('agent');
  const agent = langGraphAgent(body, undefined, guard ? (tools) => guardLangChainTools(tools, { tracer }) : undefined);
  const outcome = await settle(() =>
    traceRun(tracer, { runId: randomUUID() }, ({ signal }) =>
      agent.invoke({ messages: [new HumanMessage('Where is order 42?')] }, { recursionLimit: RECURSION_LIMIT, signal }),
    ),
  );
  return { harness, body, outcome, isCallSpan: openLlmetryTool };
}

describe('LangGraph createReactAgent + OpenLLMetry (@traceloop/instrumentation-langchain) inside traceRun', () => {
  variantTests({}, (variant) => runAgent(variant));
  blockingWrapperTest(() => runAgent('loop', true));
});
