import { context, trace, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, traceRun } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  eventsNamed,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
} from '../../helpers/otel-harness.js';

// Span shapes of @mastra/otel-bridge 1.5: a tool span starts bare (`tool: '<name>'`) and gets
// its GenAI attributes and final name `execute_tool <name>` only as it ends.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

const setup = () => createOtelHarness({ config: LOW_THRESHOLDS });

/** A Mastra-style tool span: bare at start, everything set just before its end. */
function bareToolSpan(start: (name: string) => Span, args: string, result: string): Span {
  const span = start(`tool: 'lookup'`);
  span.updateName('execute_tool lookup');
  span.setAttributes({
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: 'lookup',
    [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args,
    [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: result,
  });
  span.end();
  return span;
}

describe('genAiAdapter', () => {
  it('matches execute_tool spans whose GenAI attributes arrive only at end, and judges them then', async () => {
    const { tracer, loopEvents, exporter } = await setup();
    await traceRun(tracer, { runId: 'mastra-run' }, () => {
      for (let n = 0; n < 5; n += 1) {
        const span = bareToolSpan((name) => tracer.startSpan(name), '{"orderId":"42"}', 'pending');
        expect(getToolLoopVerdict(span)?.level).toBe(n >= 4 ? 'critical' : n >= 2 ? 'warning' : undefined);
      }
    }).catch(() => undefined);
    expect(loopEvents.map((event) => `${event.level}:${event.runId}`)).toEqual([
      'warning:mastra-run',
      'critical:mastra-run',
    ]);
    expect(eventsNamed(exporter.getFinishedSpans(), sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
  });

  it('scopes a run by gen_ai.conversation.id, and an invoke_agent span without ids opens a run', async () => {
    const { tracer, loopEvents, processor } = await createOtelHarness({
      config: LOW_THRESHOLDS,
      abortOnCritical: true,
    });
    const signal = processor.runSignal('conv-7');
    tracer.startActiveSpan(
      'invoke_agent support',
      { attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent', [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'conv-7' } },
      (agent) => {
        for (let n = 0; n < 5; n += 1) bareToolSpan((name) => tracer.startSpan(name), '{"orderId":"42"}', 'pending');
        agent.end();
      },
    );
    expect(loopEvents.map((event) => `${event.level}:${event.runId}`)).toEqual(['warning:conv-7', 'critical:conv-7']);
    expect(signal.aborted).toBe(true);

    tracer.startActiveSpan(
      'invoke_agent other',
      { attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' } },
      (agent) => {
        for (let n = 0; n < 3; n += 1) bareToolSpan((name) => tracer.startSpan(name), '{"q":1}', 'same');
        const { traceId, spanId } = agent.spanContext();
        expect(loopEvents.at(-1)?.runId).toBe(`${traceId}/${spanId}`);
        agent.end();
      },
    );
    expect(processor.getStats().liveRuns).toBe(0);
  });

  it('keeps one run for a loop whose model and tool calls, each a trace of its own, carry the conversation id', async () => {
    const { tracer, loopEvents, processor } = await createOtelHarness({ config: LOW_THRESHOLDS });
    const conversation = { [sc.ATTR_GEN_AI_CONVERSATION_ID]: 'conv-bare' };
    for (let n = 0; n < 5; n += 1) {
      tracer
        .startSpan('chat model', {
          root: true,
          attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat', ...conversation },
        })
        .end();
      const span = tracer.startSpan('execute_tool lookup_order', {
        root: true,
        attributes: {
          ...conversation,
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'lookup_order',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"orderId":"42"}',
        },
      });
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, 'pending');
      span.end();
    }
    expect(loopEvents.map((event) => `${event.level}:${event.runId}`)).toEqual([
      'warning:conv-bare',
      'critical:conv-bare',
    ]);
    expect(processor.getStats()).toMatchObject({ liveRuns: 1, releasedRuns: { 'root-ended': 0 } });
  });

  it('gen_ai.conversation.compacted=true arms the post-compaction guard of its run', async () => {
    const { tracer, exporter } = await setup();
    await traceRun(tracer, { runId: 'compacted' }, () => {
      tracer.startSpan('chat model', { attributes: { [sc.ATTR_GEN_AI_CONVERSATION_COMPACTED]: true } }).end();
    });
    expect(eventsNamed(exporter.getFinishedSpans(), sc.EVENT_TOOL_LOOP_GUARD_ARMED)).toHaveLength(1);
  });

  it('does not claim an OpenClaw veto span at its end', async () => {
    const { tracer, loopEvents } = await setup();
    await traceRun(tracer, { runId: 'vetoes' }, () => {
      for (let n = 0; n < 5; n += 1) {
        const span = tracer.startSpan(sc.OPENCLAW_SPAN_TOOL_EXECUTION, {}, context.active());
        span.setAttributes({
          [sc.ATTR_OPENCLAW_OUTCOME]: sc.OPENCLAW_OUTCOME_BLOCKED,
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'exec',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{}',
        });
        span.end();
      }
    });
    expect(loopEvents).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
