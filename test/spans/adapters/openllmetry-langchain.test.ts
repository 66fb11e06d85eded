import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, openLlmetryLangChainAdapter, traceRun } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  eventsNamed,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
} from '../../helpers/otel-harness.js';

// Span shapes of @traceloop/instrumentation-langchain 0.27: a tool run is a task span named after
// the tool's class, every attribute set after start, the tool's name only in its output message.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

/** The serialised ToolMessage OpenLLMetry records as `traceloop.entity.output`. */
function toolMessage(content: string, callId: string, name = 'lookup_order'): string {
  return JSON.stringify({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', 'ToolMessage'],
    kwargs: { content, tool_call_id: callId, name, additional_kwargs: {}, response_metadata: {} },
  });
}

const taskAttributes = (args: unknown, output: string) => ({
  [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
  'gen_ai.provider.name': 'langchain',
  [sc.ATTR_TRACELOOP_SPAN_KIND]: sc.TRACELOOP_SPAN_KIND_TASK,
  [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'DynamicStructuredTool',
  [sc.ATTR_TRACELOOP_ENTITY_INPUT]: JSON.stringify({ args: [JSON.stringify(args)] }),
  [sc.ATTR_TRACELOOP_ENTITY_OUTPUT]: output,
});

describe('openLlmetryLangChainAdapter', () => {
  it('reads the tool name, arguments and result of a task span, without the per-call id', () => {
    const span = {
      name: 'execute_tool DynamicStructuredTool',
      attributes: taskAttributes({ orderId: '42' }, toolMessage('pending', 'call-3')),
    };
    expect(openLlmetryLangChainAdapter.matchEnd?.(span)).toEqual({
      toolName: 'lookup_order',
      toolCallId: 'call-3',
      arguments: { orderId: '42' },
    });
    const end = openLlmetryLangChainAdapter.readEnd(span);
    expect(end.result).toBe('pending');
    expect(end.arguments).toEqual({ orderId: '42' });
    expect(
      openLlmetryLangChainAdapter.matchEnd?.({
        name: 'workflow x',
        attributes: { [sc.ATTR_TRACELOOP_SPAN_KIND]: 'workflow' },
      }),
    ).toBeUndefined();
  });

  it('falls back to the entity name when the output is no message', () => {
    const span = { name: 'execute_tool DynamicStructuredTool', attributes: taskAttributes({ q: 1 }, '"plain"') };
    expect(openLlmetryLangChainAdapter.matchEnd?.(span)?.toolName).toBe('DynamicStructuredTool');
  });

  it('judges task spans at end: identical calls whose messages differ only by tool_call_id loop', async () => {
    const { tracer, loopEvents, exporter } = await createOtelHarness({ config: LOW_THRESHOLDS, redactContent: true });
    const verdicts: (string | undefined)[] = [];
    await traceRun(tracer, { runId: 'openllmetry' }, () => {
      for (let n = 0; n < 5; n += 1) {
        const span = tracer.startSpan('execute_tool DynamicStructuredTool');
        expect(getToolLoopVerdict(span)).toBeUndefined();
        span.setAttributes(taskAttributes({ orderId: '42' }, toolMessage('pending', `call-${n}`)));
        span.end();
        verdicts.push(getToolLoopVerdict(span)?.level);
      }
    }).catch(() => undefined);
    expect(verdicts).toEqual([undefined, undefined, 'warning', 'warning', 'critical']);
    expect(loopEvents.every((event) => event.runId === 'openllmetry' && event.toolName === 'lookup_order')).toBe(true);
    const [blocked] = eventsNamed(exporter.getFinishedSpans(), sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(blocked).toBeDefined();
  });
});
