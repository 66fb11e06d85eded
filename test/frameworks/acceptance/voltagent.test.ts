import { randomUUID } from 'node:crypto';
import { isToolLoopAbort, ToolLoopBlockedError } from 'tool-loop-guard';
import { beforeAll, describe, expect, it } from 'vitest';
import { settle, variantTests, type VariantRun } from '../harness/acceptance.js';
import { fileGuard } from '../harness/guard.js';
import { CALLS, ToolBody, type Variant } from '../harness/scenario.js';
import { voltAgent, voltAgentObservability, voltAgentTool } from '../voltagent/voltagent-agent.js';

// VoltAgent's own pipeline (one per process: its provider registers itself globally). It
// appends these processors after its own, each wrapped in a filter that forwards onStart and
// onEnd but not onEnding: the exporter is wrapped so that what the guard decides at a span's end
// (and redactContent) reaches the exported spans.
const pipeline = fileGuard({ redactContent: true });
let observability: ReturnType<typeof voltAgentObservability>;
beforeAll(() => {
  observability = voltAgentObservability(pipeline.processors());
});

/** `generateText` with a conversation id, the conversation's run signal as its abort signal. */
async function runAgent(variant: Variant): Promise<VariantRun> {
  const body = new ToolBody(variant);
  const conversationId = `voltagent-${variant}-${randomUUID()}`;
  const outcome = await settle(() =>
    voltAgent(body, observability).generateText('Where is order 42?', {
      conversationId,
      maxSteps: CALLS + 5,
      abortSignal: pipeline.guard().runSignal(conversationId),
    }),
  );
  await observability.forceFlush();
  return { harness: pipeline.observed, body, outcome, isCallSpan: voltAgentTool };
}

describe('VoltAgent generateText with its own observability (spanProcessors: [guard, exporting], exporter wrapped), conversationId + runSignal', () => {
  variantTests({}, runAgent);

  it("rejects with VoltAgent's AbortError (our message as its reason), which isToolLoopAbort recognises", async () => {
    const run = await runAgent('loop');
    expect(run.body.executions).toBe(21);
    const error = run.outcome.error as Error & { reason?: unknown };
    expect(error).not.toBeInstanceOf(ToolLoopBlockedError);
    expect(error.name).toBe('AbortError');
    expect(typeof error.reason).toBe('string');
    expect(isToolLoopAbort(error)).toBe(true);
    expect(isToolLoopAbort(new Error('Operation aborted: user cancelled'))).toBe(false);
  });

  it('exports no tool arguments, results or model messages with redactContent, and the spans carry no onEnding', async () => {
    const run = await runAgent('healthy');
    const exported = run.harness.exported();
    expect(exported.filter(voltAgentTool)).toHaveLength(CALLS);
    for (const key of ['input', 'output', 'llm.messages', 'agent.messages', 'agent.messages.ui'])
      expect(
        exported.filter((span) => span.attributes[key] !== undefined).map((span) => span.name),
        key,
      ).toEqual([]);
    expect(exported.filter(voltAgentTool).every((span) => span.attributes['tool.name'] === 'lookup_order')).toBe(true);
  });
});
