import { SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkAdapter, getToolLoopVerdict } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  type HarnessOptions,
} from '../../helpers/otel-harness.js';

// Span shapes as ai@6 emits them (node_modules/ai/dist/index.mjs, recordSpan / executeToolCall):
// `ai.toolCall` with operation.name, ai.operationId, ai.telemetry.functionId, ai.telemetry.metadata.*,
// ai.toolCall.name, ai.toolCall.id, ai.toolCall.args at start; ai.toolCall.result set before end.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

async function setup(options: HarnessOptions = {}) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS, ...options });
  return { ...harness, events: harness.loopEvents };
}

function toolAttributes(n: number, extra: Attributes = {}, functionId?: string): Attributes {
  return {
    'operation.name': functionId ? `ai.toolCall ${functionId}` : 'ai.toolCall',
    [sc.ATTR_AI_OPERATION_ID]: sc.AI_SDK_TOOL_CALL,
    ...(functionId ? { [sc.ATTR_AI_TELEMETRY_FUNCTION_ID]: functionId, 'resource.name': functionId } : {}),
    [sc.ATTR_AI_TOOL_CALL_NAME]: 'check_status',
    [sc.ATTR_AI_TOOL_CALL_ID]: `call-${n}`,
    [sc.ATTR_AI_TOOL_CALL_ARGS]: JSON.stringify({ job: 'build-42' }),
    ...extra,
  };
}

/** One ai.toolCall span: started with `start`, result (or error) set, ended. Returns the span and its verdict at start. */
function toolCall(
  tracer: Tracer,
  start: Attributes,
  outcome: { result?: unknown; error?: Error } = { result: { state: 'running' } },
) {
  return tracer.startActiveSpan(sc.AI_SDK_TOOL_CALL, { attributes: start }, (span: Span) => {
    const atStart = getToolLoopVerdict(span);
    if (outcome.error) {
      span.recordException({ name: outcome.error.name, message: outcome.error.message });
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
    } else {
      span.setAttributes({ [sc.ATTR_AI_TOOL_CALL_RESULT]: JSON.stringify(outcome.result) });
    }
    span.end();
    return { span, atStart };
  });
}

function root(tracer: Tracer, attributes: Attributes, fn: () => void): string {
  return tracer.startActiveSpan(
    sc.AI_SDK_OPERATION_GENERATE_TEXT,
    { attributes: { [sc.ATTR_AI_OPERATION_ID]: sc.AI_SDK_OPERATION_GENERATE_TEXT, ...attributes } },
    (span) => {
      fn();
      span.end();
      return `${span.spanContext().traceId}/${span.spanContext().spanId}`;
    },
  );
}

describe('aiSdkAdapter', () => {
  it('judges ai.toolCall spans at start (arguments are known before the tool runs)', async () => {
    const { tracer, events } = await setup();
    const verdicts: Array<ReturnType<typeof getToolLoopVerdict>> = [];
    root(tracer, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'r1' }, () => {
      for (let n = 1; n <= 5; n += 1)
        verdicts.push(toolCall(tracer, toolAttributes(n, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'r1' })).atStart);
    });
    expect(verdicts.slice(0, 2)).toEqual([undefined, undefined]);
    expect(verdicts[2]?.level).toBe('warning');
    expect(verdicts[4]?.level).toBe('critical');
    expect(verdicts[4]?.detector).toBe('generic_repeat');
    expect(events.at(-1)).toMatchObject({ level: 'critical', toolName: 'check_status', runId: 'r1' });
  });

  it('scopes by ai.telemetry.metadata.runId, inherited from the root when the tool span lacks it', async () => {
    const { tracer, events, processor } = await setup();
    root(tracer, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'run-7' }, () => {
      for (let n = 1; n <= 3; n += 1) toolCall(tracer, toolAttributes(n));
    });
    expect(events).toHaveLength(1);
    expect(events[0].runId).toBe('run-7');
    expect(processor.getStats().liveRuns).toBe(0);
  });

  it('accepts a numeric runId metadata value', async () => {
    const { tracer, events } = await setup();
    for (let n = 1; n <= 3; n += 1) toolCall(tracer, toolAttributes(n, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 42 }));
    expect(events[0].runId).toBe('42');
  });

  it('opens an id-less run at the ai.generateText root; two calls do not share history', async () => {
    const { tracer, events, processor } = await setup();
    const first = root(tracer, {}, () => {
      for (let n = 1; n <= 3; n += 1) toolCall(tracer, toolAttributes(n));
    });
    expect(processor.getStats().liveRuns).toBe(0);
    root(tracer, {}, () => {
      for (let n = 1; n <= 2; n += 1) toolCall(tracer, toolAttributes(n));
    });
    expect(events).toHaveLength(1);
    expect(events[0].runId).toBe(first);
  });

  it('takes the agent id from ai.telemetry.functionId unless gen_ai.agent.id is set', async () => {
    const { tracer, events } = await setup();
    for (let n = 1; n <= 3; n += 1)
      toolCall(tracer, toolAttributes(n, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'a' }, 'support-bot'));
    for (let n = 1; n <= 3; n += 1)
      toolCall(
        tracer,
        toolAttributes(
          n,
          { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'b', [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-x' },
          'support-bot',
        ),
      );
    expect(events.map((e) => [e.runId, e.agentId])).toEqual([
      ['a', 'support-bot'],
      ['b', 'agent-x'],
    ]);
  });

  it('records errors (status ERROR + exception event) as error outcomes', async () => {
    const { tracer, events } = await setup({ config: { tools: { loopDetection: { enabled: true } } } });
    const start = (n: number) => toolAttributes(n, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'e' });
    // Identical errors are identical outcomes: generic_repeat goes critical on the no-progress streak.
    const calls = [];
    for (let n = 1; n <= 21; n += 1) calls.push(toolCall(tracer, start(n), { error: new Error('connection refused') }));
    expect(calls[20].atStart?.level).toBe('critical');
    expect(events.at(-1)?.detector).toBe('generic_repeat');
  });

  it('redactContent removes ai.toolCall.args and ai.toolCall.result before export', async () => {
    const { tracer, exporter, events } = await setup({ redactContent: true });
    for (let n = 1; n <= 3; n += 1)
      toolCall(tracer, toolAttributes(n, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'x' }));
    expect(events).toHaveLength(1); // still judged from the content before it was removed
    for (const span of exporter.getFinishedSpans()) {
      expect(span.attributes[sc.ATTR_AI_TOOL_CALL_ARGS]).toBeUndefined();
      expect(span.attributes[sc.ATTR_AI_TOOL_CALL_RESULT]).toBeUndefined();
      expect(span.attributes[sc.ATTR_AI_TOOL_CALL_NAME]).toBe('check_status');
    }
  });

  it('ignores AI SDK spans that are not tool calls, even when they carry ai.toolCall.* attributes', async () => {
    // A model-call span carrying the tool-call attributes (name, id, args): only the span name /
    // ai.operationId make a tool call, so this is none.
    const notATool = (n: number): Attributes => ({
      [sc.ATTR_AI_OPERATION_ID]: 'ai.generateText.doGenerate',
      'operation.name': 'ai.generateText.doGenerate',
      [sc.ATTR_AI_TOOL_CALL_NAME]: 'check_status',
      [sc.ATTR_AI_TOOL_CALL_ID]: `call-${n}`,
      [sc.ATTR_AI_TOOL_CALL_ARGS]: JSON.stringify({ job: 'build-42' }),
    });
    expect(aiSdkAdapter.matchStart({ name: 'ai.generateText.doGenerate', attributes: notATool(1) })).toBeUndefined();
    // Control: the same attributes on an ai.toolCall span are a call.
    expect(aiSdkAdapter.matchStart({ name: sc.AI_SDK_TOOL_CALL, attributes: notATool(1) })?.toolName).toBe(
      'check_status',
    );

    const { tracer, exporter, events } = await setup();
    const verdicts: Array<ReturnType<typeof getToolLoopVerdict>> = [];
    root(tracer, { [sc.ATTR_AI_TELEMETRY_METADATA_RUN_ID]: 'n' }, () => {
      for (let n = 1; n <= 8; n += 1) {
        const span = tracer.startSpan('ai.generateText.doGenerate', { attributes: notATool(n) });
        verdicts.push(getToolLoopVerdict(span));
        span.setAttributes({ [sc.ATTR_AI_TOOL_CALL_RESULT]: JSON.stringify({ state: 'running' }) });
        span.end();
        verdicts.push(getToolLoopVerdict(span));
      }
    });
    // Eight identical calls would warn at the 3rd and go critical at the 5th (LOW_THRESHOLDS).
    expect(verdicts).toHaveLength(16);
    expect(verdicts.every((v) => v === undefined)).toBe(true);
    expect(events).toEqual([]);
    expect(exporter.getFinishedSpans()).toHaveLength(9);
    expect(
      exporter
        .getFinishedSpans()
        .every((s) => s.attributes[sc.ATTR_TOOL_LOOP_VERDICT] === undefined && s.events.length === 0),
    ).toBe(true);
  });
});
