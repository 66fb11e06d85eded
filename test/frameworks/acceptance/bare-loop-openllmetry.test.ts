import { randomUUID } from 'node:crypto';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { LangChainInstrumentation } from '@traceloop/instrumentation-langchain';
import { withRun } from 'tool-loop-guard';
import { describe, expect, it } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { bareToolLoop, openLlmetryTool } from '../harness/bare-loop.js';
import { instrumentedHarnesses } from '../harness/guard.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

const instrumentation = new LangChainInstrumentation();
const open = instrumentedHarnesses(instrumentation, () =>
  instrumentation.manuallyInstrument({ callbackManagerModule: CallbackManagerModule }),
);

/**
 * A hand-written loop of model and tool invokes with OpenLLMetry's LangChain instrumentation and
 * no enclosing span: every model and tool call is a trace of its own. `withRun` carries the run
 * in the context instead, and `runSignal(runId)` is the loop's signal.
 */
async function runLoop(variant: Variant, run = true): Promise<VariantRun> {
  const harness = await open();
  const body = new ToolBody(variant);
  const runId = randomUUID();
  const loop = () => bareToolLoop(body, harness.processor.runSignal(runId));
  const outcome = await settle(() => (run ? withRun({ runId }, loop) : loop()));
  return { harness, body, outcome, isCallSpan: openLlmetryTool };
}

describe('a bare LangChain loop (no graph, no enclosing span) + OpenLLMetry, inside withRun', () => {
  variantTests({}, (variant) => runLoop(variant));

  it('every span of the loop is the root of its own trace', async () => {
    const { harness } = await runLoop('clean');
    const spans = harness.exported();
    expect(spans.filter(openLlmetryTool)).toHaveLength(30);
    expect(spans.every((span) => span.parentSpanContext === undefined)).toBe(true);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(spans.length);
  });

  it('without withRun each call is a run of its own: the loop runs all 30 calls undetected', async () => {
    const run = await runLoop('loop', false);
    expect(run.body.executions).toBe(30);
    expect(run.harness.events).toEqual([]);
  });
});
