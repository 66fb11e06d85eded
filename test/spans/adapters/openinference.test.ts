import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, traceRun } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  type HarnessOptions,
} from '../../helpers/otel-harness.js';

// Span shapes of @arizeai/openinference-instrumentation-langchain (src/tracer.ts, src/utils.ts):
// a run's span starts with only `openinference.span.kind` (name = run name; OITracer adds context
// attributes such as `session.id`), child runs are parented with trace.setSpanContext(parent's
// span context); `tool.name`, `input.value`, `output.value` are set just before end.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

async function setup(options: HarnessOptions = {}) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS, ...options });
  return { ...harness, events: harness.loopEvents };
}

/** A run span the LangChain tracer's way: parent by span context only. */
function startRun(tracer: Tracer, name: string, kind: string, parent: Span | undefined, session?: string): Span {
  const ctx = parent ? trace.setSpanContext(context.active(), parent.spanContext()) : context.active();
  const attributes: Attributes = { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: kind };
  if (session) attributes[sc.ATTR_OPENINFERENCE_SESSION_ID] = session;
  return tracer.startSpan(name, { attributes }, ctx);
}

function toolRun(
  tracer: Tracer,
  parent: Span | undefined,
  session: string | undefined,
  input: string,
  output: string,
  n = 0,
) {
  const span = startRun(tracer, 'check_status', 'TOOL', parent, session);
  const atStart = getToolLoopVerdict(span);
  span.setStatus({ code: SpanStatusCode.OK });
  span.setAttributes({
    [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: input,
    'input.mime_type': 'text/plain',
    [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: output,
    'output.mime_type': 'application/json',
    [sc.ATTR_OPENINFERENCE_TOOL_NAME]: 'check_status',
    'tool.description': `status #${n}`,
  });
  span.end();
  return { span, atStart, atEnd: getToolLoopVerdict(span) };
}

/** JSON of `{output: ToolMessage}` as LangChain serialises it: the per-call tool_call_id differs. */
function toolMessageOutput(content: string, callId: string): string {
  return JSON.stringify({
    output: {
      lc: 1,
      type: 'constructor',
      id: ['langchain_core', 'messages', 'ToolMessage'],
      kwargs: { content, tool_call_id: callId, name: 'check_status' },
    },
  });
}

/** JSON of a ToolMessage as LangChain Python's `message_to_dict` writes it (OpenInference for Python). */
function pythonToolMessageOutput(content: string, callId: string): string {
  return JSON.stringify({
    type: 'tool',
    data: {
      content,
      additional_kwargs: {},
      type: 'tool',
      name: 'check_status',
      id: null,
      tool_call_id: callId,
      status: 'success',
    },
  });
}

describe('openInferenceAdapter', () => {
  it("reads a Python agent's ToolMessage by its content: results differing only by tool_call_id match", async () => {
    const { tracer } = await setup();
    const agent = startRun(tracer, 'LangGraph', 'CHAIN', undefined, 'py-sess');
    const calls = [];
    for (let n = 1; n <= 5; n += 1)
      calls.push(
        toolRun(tracer, agent, 'py-sess', '{"order":"A-1"}', pythonToolMessageOutput('shipped', `call_${n}`), n),
      );
    expect(calls[4].atEnd?.level).toBe('critical');
    agent.end();
  });

  it('judges LangChain tool spans at end, scoped by session.id across child runs', async () => {
    const { tracer, events, exporter, processor } = await setup();
    const agent = startRun(tracer, 'AgentExecutor', 'CHAIN', undefined, 'sess-1');
    const calls = [];
    for (let n = 1; n <= 5; n += 1) {
      // A model run between tool runs; its end must not drop the session's history.
      startRun(tracer, 'ChatOpenAI', 'LLM', agent, 'sess-1').end();
      calls.push(toolRun(tracer, agent, 'sess-1', '{"job":"build-42"}', toolMessageOutput('running', `call_${n}`), n));
    }
    expect(calls.every((c) => c.atStart === undefined)).toBe(true);
    expect(calls[2].atEnd?.level).toBe('warning');
    // The ToolMessage's kwargs.content is the result: outputs differing only by tool_call_id match.
    expect(calls[4].atEnd?.level).toBe('critical');
    expect(events.map((e) => e.runId)).toEqual(['sess-1', 'sess-1']);
    const exported = exporter
      .getFinishedSpans()
      .filter((s) => s.attributes[sc.ATTR_OPENINFERENCE_SPAN_KIND] === 'TOOL');
    expect(exported[4].events.map((e) => e.name)).toContain(sc.EVENT_TOOL_LOOP_BLOCKED);
    agent.end();
    expect(processor.getStats().liveRuns).toBe(0);
  });

  it('session.id set only as the span ends (OITracer) settles the run then: runSignal(sessionId) aborts', async () => {
    const { tracer, events, processor } = await setup({ abortOnCritical: true });
    const signal = processor.runSignal('late-session');
    const agent = startRun(tracer, 'LangGraph', 'CHAIN', undefined);
    for (let n = 1; n <= 5; n += 1) {
      const span = startRun(tracer, 'check_status', 'TOOL', agent);
      span.setAttributes({
        [sc.ATTR_OPENINFERENCE_SESSION_ID]: 'late-session',
        [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: 'build-42',
        [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: toolMessageOutput('running', `call_${n}`),
      });
      span.end();
    }
    agent.end();
    expect(events.map((e) => `${e.level}:${e.runId}`)).toEqual(['warning:late-session', 'critical:late-session']);
    expect(signal.aborted).toBe(true);
  });

  it('a session.id set at end does not take a call out of the traceRun it belongs to', async () => {
    const { tracer, events } = await setup();
    await traceRun(tracer, { runId: 'explicit-run' }, () => {
      for (let n = 1; n <= 3; n += 1) {
        const span = tracer.startSpan('check_status');
        span.setAttributes({
          [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL',
          [sc.ATTR_OPENINFERENCE_SESSION_ID]: 'other-session',
          [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: 'build-42',
          [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: 'running',
        });
        span.end();
      }
    });
    expect(events.map((e) => e.runId)).toEqual(['explicit-run']);
  });

  it('without session.id, scopes by the trace', async () => {
    const { tracer, events } = await setup();
    const agent = startRun(tracer, 'AgentExecutor', 'CHAIN', undefined);
    for (let n = 1; n <= 3; n += 1) toolRun(tracer, agent, undefined, '{"job":"a"}', 'running');
    agent.end();
    expect(events).toHaveLength(1);
    expect(events[0].runId).toBe(agent.spanContext().traceId);
  });

  it('judges at start when input.value is there at start', async () => {
    const { tracer } = await setup();
    const verdicts = [];
    for (let n = 1; n <= 3; n += 1) {
      const span = tracer.startSpan('lookup', {
        attributes: {
          [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL',
          [sc.ATTR_OPENINFERENCE_TOOL_NAME]: 'lookup',
          [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: '{"q":1}',
          [sc.ATTR_OPENINFERENCE_SESSION_ID]: 's',
        },
      });
      verdicts.push(getToolLoopVerdict(span));
      span.setAttribute(sc.ATTR_OPENINFERENCE_OUTPUT_VALUE, 'same');
      span.end();
    }
    expect(verdicts[2]?.level).toBe('warning');
  });

  it('matches a span whose kind is set only after start', async () => {
    const { tracer, events } = await setup();
    tracer.startActiveSpan('agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'late-run' } }, (agent) => {
      for (let n = 1; n <= 3; n += 1) {
        const span = tracer.startSpan('late_tool');
        span.setAttributes({
          [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL',
          [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: '{"q":1}',
          [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: 'x',
        });
        span.end();
      }
      agent.end();
    });
    expect(events).toHaveLength(1);
    expect(events[0].runId).toBe('late-run');
    expect(events[0].toolName).toBe('late_tool');
  });

  it('redactContent removes input.value and output.value', async () => {
    const { tracer, exporter, events } = await setup({ redactContent: true });
    for (let n = 1; n <= 3; n += 1) toolRun(tracer, undefined, 's', '{"job":"a"}', 'running');
    expect(events).toHaveLength(1);
    for (const span of exporter.getFinishedSpans()) {
      expect(span.attributes[sc.ATTR_OPENINFERENCE_INPUT_VALUE]).toBeUndefined();
      expect(span.attributes[sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]).toBeUndefined();
    }
  });

  it('ignores non-tool OpenInference spans', async () => {
    const { tracer, events } = await setup();
    for (let n = 1; n <= 5; n += 1) {
      const span = startRun(tracer, 'ChatOpenAI', 'LLM', undefined, 's');
      span.setAttributes({ [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: 'hi', [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: 'hello' });
      span.end();
    }
    expect(events).toHaveLength(0);
  });
});
