import { randomUUID } from 'node:crypto';
import { setSession } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { context } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { bareToolLoop } from '../harness/bare-loop.js';
import { instrumentedHarnesses } from '../harness/guard.js';
import { ToolBody, type Variant } from '../harness/scenario.js';

const instrumentation = new LangChainInstrumentation();
const open = instrumentedHarnesses(instrumentation, () => instrumentation.manuallyInstrument(CallbackManagerModule));

const openInferenceTool = (span: ReadableSpan): boolean => span.attributes['openinference.span.kind'] === 'TOOL';

/**
 * The hand-written loop with OpenInference's LangChain instrumentation and no enclosing span:
 * every call is a trace of its own, and `setSession` puts `session.id` on each (as it ends).
 */
async function runLoop(variant: Variant): Promise<VariantRun> {
  const harness = await open();
  const body = new ToolBody(variant);
  const sessionId = randomUUID();
  const outcome = await settle(() =>
    context.with(setSession(context.active(), { sessionId }), () =>
      bareToolLoop(body, harness.processor.runSignal(sessionId)),
    ),
  );
  return { harness, body, outcome, isCallSpan: openInferenceTool };
}

describe('a bare LangChain loop (no graph, no enclosing span) + OpenInference, setSession + runSignal(sessionId)', () => {
  variantTests({}, runLoop);

  it('every span of the loop is the root of its own trace', async () => {
    const { harness } = await runLoop('clean');
    const spans = harness.exported();
    expect(spans.filter(openInferenceTool)).toHaveLength(30);
    expect(spans.every((span) => span.parentSpanContext === undefined)).toBe(true);
  });
});
