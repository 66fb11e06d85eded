import { randomUUID } from 'node:crypto';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { LangChainInstrumentation } from '@traceloop/instrumentation-langchain';
import { guardLangChainTools, traceRun } from 'tool-loop-guard';
import { describe } from 'vitest';
import { blockingWrapperTest, settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { openLlmetryTool } from '../harness/bare-loop.js';
import { instrumentedHarnesses } from '../harness/guard.js';
import { langGraphAgent, RECURSION_LIMIT } from '../harness/langgraph-agent.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

const instrumentation = new LangChainInstrumentation();
const open = instrumentedHarnesses(instrumentation, () => instrumentation.manuallyInstrument({ callbackManagerModule: CallbackManagerModule }));

/**
 * OpenLLMetry parents every LangChain span to the active OTel span (without one each span is
 * its own trace), so the run is opened with `traceRun` and its signal passed to the graph.
 */
async function runAgent(variant: Variant, guard = false): Promise<VariantRun> {
  const harness = await open(guard ? { abortOnCritical: false } : {});
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
