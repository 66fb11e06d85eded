import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, voltAgentAdapter } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  C0,
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
} from '../../helpers/otel-harness.js';

// Span shapes of @voltagent/core 2.10: every span of an agent operation carries its operation id,
// entity type and id, and the conversation id when one was given; the root span `agent.state`, a
// tool span its type, name, call id and JSON arguments from its start, and `output` at its end.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

const operation = (conversationId?: string) => ({
  ...(conversationId ? { [sc.ATTR_VOLTAGENT_CONVERSATION_ID]: conversationId } : {}),
  [sc.ATTR_VOLTAGENT_OPERATION_ID]: 'op-1',
  [sc.ATTR_VOLTAGENT_ENTITY_ID]: 'order-agent',
  [sc.ATTR_VOLTAGENT_ENTITY_TYPE]: 'agent',
  'entity.name': 'order-agent',
});

const toolAttributes = (conversationId: string | undefined, call: number, args: unknown) => ({
  ...operation(conversationId),
  [sc.ATTR_VOLTAGENT_SPAN_TYPE]: 'tool',
  [sc.ATTR_VOLTAGENT_TOOL_NAME]: 'lookup_order',
  [sc.ATTR_VOLTAGENT_TOOL_CALL_ID]: `call-${call}`,
  [sc.ATTR_VOLTAGENT_INPUT]: JSON.stringify(args),
});

/** One agent operation as VoltAgent emits it: a root span in a new trace, tool spans under it. */
function agentOperation(tracer: Tracer, conversationId: string | undefined, body: (root: Span) => void): void {
  const root = tracer.startSpan(
    'order-agent',
    { root: true, attributes: { ...operation(conversationId), [sc.ATTR_VOLTAGENT_AGENT_STATE]: 'running' } },
    context.active(),
  );
  context.with(trace.setSpan(context.active(), root), () => body(root));
  root.end();
}

function toolCall(tracer: Tracer, conversationId: string | undefined, call: number, result: string, error?: string) {
  const span = tracer.startSpan('tool.execution:lookup_order', {
    attributes: toolAttributes(conversationId, call, { orderId: '42' }),
  });
  const verdict = getToolLoopVerdict(span)?.level;
  if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  else span.setAttribute(sc.ATTR_VOLTAGENT_OUTPUT, result);
  span.end();
  return verdict;
}

describe('voltAgentAdapter', () => {
  it('recognises a tool span at start with its call id and JSON arguments, and reads the output at end', () => {
    const attributes = toolAttributes('conv-1', 0, { orderId: '42' });
    expect(voltAgentAdapter.matchStart({ name: 'tool.execution:lookup_order', attributes })).toMatchObject({
      toolName: 'lookup_order',
      toolCallId: 'call-0',
      arguments: '{"orderId":"42"}',
    });
    const end = voltAgentAdapter.readEnd({
      name: 'tool.execution:lookup_order',
      attributes: { ...attributes, [sc.ATTR_VOLTAGENT_OUTPUT]: 'status: pending' },
    });
    expect([end.arguments, end.result, end.isError]).toEqual(['{"orderId":"42"}', 'status: pending', false]);
    // A model span, and a span that only looks like a tool span (no operation id), are no calls.
    expect(
      voltAgentAdapter.matchStart({
        name: 'llm:generateText',
        attributes: { ...operation('c'), [sc.ATTR_VOLTAGENT_SPAN_TYPE]: 'llm' },
      }),
    ).toBeUndefined();
    expect(
      voltAgentAdapter.matchStart({
        name: 'tool',
        attributes: { [sc.ATTR_VOLTAGENT_SPAN_TYPE]: 'tool', [sc.ATTR_VOLTAGENT_TOOL_NAME]: 'x' },
      }),
    ).toBeUndefined();
  });

  it('scopes runs by conversation id, else by the operation root span; agent id from entity.id or subagent.id', () => {
    expect(voltAgentAdapter.scopeHint!({ name: 'tool', attributes: toolAttributes('conv-1', 0, {}) })).toEqual({
      runId: 'conv-1',
      agentId: 'order-agent',
      startsRun: false,
    });
    expect(
      voltAgentAdapter.scopeHint!({
        name: 'order-agent',
        attributes: { ...operation(), [sc.ATTR_VOLTAGENT_AGENT_STATE]: 'running' },
      }),
    ).toEqual({ runId: undefined, agentId: 'order-agent', startsRun: true });
    expect(
      voltAgentAdapter.scopeHint!({
        name: 'subagent:helper',
        attributes: { ...operation('conv-1'), [sc.ATTR_VOLTAGENT_SUBAGENT_ID]: 'helper' },
      })?.agentId,
    ).toBe('helper');
    expect(
      voltAgentAdapter.scopeHint!({ name: 'x', attributes: { [sc.ATTR_VOLTAGENT_CONVERSATION_ID]: 'c' } }),
    ).toBeUndefined();
  });

  it('judges tool calls at start within the conversation run, whose signal aborts; failed calls are error outcomes', async () => {
    const { tracer, processor, loopEvents } = await createOtelHarness({
      config: LOW_THRESHOLDS,
      abortOnCritical: true,
    });
    const signal = processor.runSignal('conv-1');
    const verdicts: (string | undefined)[] = [];
    agentOperation(tracer, 'conv-1', () => {
      for (let call = 0; call < 5; call += 1) verdicts.push(toolCall(tracer, 'conv-1', call, '', 'order service down'));
    });
    expect(verdicts).toEqual([undefined, undefined, 'warning', 'warning', 'critical']);
    expect(loopEvents.map((event) => [event.runId, event.agentId])).toContainEqual(['conv-1', 'order-agent']);
    expect(signal.aborted).toBe(true);
  });

  it('an operation without a conversation id is a run of its own, released with its root span', async () => {
    const { tracer, processor } = await createOtelHarness({ config: C0 });
    const verdicts: (string | undefined)[] = [];
    for (let operationRun = 0; operationRun < 3; operationRun += 1)
      agentOperation(tracer, undefined, () => {
        for (let call = 0; call < 10; call += 1) verdicts.push(toolCall(tracer, undefined, call, 'status: pending'));
      });
    expect(verdicts.filter((level) => level !== undefined)).toEqual([]);
    expect(processor.getStats()).toMatchObject({ liveRuns: 0, releasedRuns: { 'root-ended': 3 } });
  });

  it('redactContent removes tool content and model messages from the spans of an agent operation only', async () => {
    const h = await createOtelHarness({ config: C0, redactContent: true });
    const { tracer } = h;
    const model = tracer.startSpan('llm:generateText', {
      attributes: {
        ...operation('conv-1'),
        [sc.ATTR_VOLTAGENT_SPAN_TYPE]: 'llm',
        [sc.ATTR_VOLTAGENT_LLM_MESSAGES]: '[…]',
      },
    });
    model.end();
    toolCall(tracer, 'conv-1', 0, 'status: pending');
    tracer.startSpan('other', { attributes: { [sc.ATTR_VOLTAGENT_INPUT]: 'kept' } }).end();
    const [modelSpan, toolSpan, other] = h.finished();
    expect(modelSpan.attributes[sc.ATTR_VOLTAGENT_LLM_MESSAGES]).toBeUndefined();
    expect(toolSpan.attributes).not.toHaveProperty(sc.ATTR_VOLTAGENT_INPUT);
    expect(toolSpan.attributes).not.toHaveProperty(sc.ATTR_VOLTAGENT_OUTPUT);
    expect(toolSpan.attributes[sc.ATTR_VOLTAGENT_TOOL_NAME]).toBe('lookup_order');
    expect(other.attributes[sc.ATTR_VOLTAGENT_INPUT]).toBe('kept');
  });
});
