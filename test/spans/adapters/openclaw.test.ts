import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  type HarnessOptions,
} from '../../helpers/otel-harness.js';

// Span shapes of OpenClaw's extensions/diagnostics-otel:
// `openclaw.tool.execution` starts at tool.execution.started with openclaw.toolName, gen_ai.tool.name,
// openclaw.tool.source, gen_ai.operation.name, gen_ai.tool.call.id; content (captureContent) and
// error status are set at completion. Children are parented with
// trace.setSpanContext(active(), runSpan.spanContext()), not with the run span object.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

async function setup(options: HarnessOptions = {}) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS, ...options });
  return { ...harness, events: harness.loopEvents };
}

function startRun(tracer: Tracer, name = sc.OPENCLAW_SPAN_RUN, agent = 'main'): Span {
  return tracer.startSpan(name, { attributes: { [sc.ATTR_OPENCLAW_AGENT]: agent, 'openclaw.provider': 'anthropic' } });
}

function baseAttributes(tool: string, n: number): Attributes {
  return {
    [sc.ATTR_OPENCLAW_TOOL_NAME]: tool,
    'openclaw.tool.source': 'core',
    [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
    'openclaw.tool.params.kind': 'object',
    [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
    [sc.ATTR_GEN_AI_TOOL_CALL_ID]: `toolu_${n}`,
  };
}

interface Outcome {
  args?: string;
  result?: string;
  errorCategory?: string;
}

/** tool.execution.started → completed/error, the recorder's way. */
function toolExecution(tracer: Tracer, run: Span, tool: string, n: number, outcome: Outcome) {
  const parent = trace.setSpanContext(context.active(), run.spanContext());
  const span = tracer.startSpan(sc.OPENCLAW_SPAN_TOOL_EXECUTION, { attributes: baseAttributes(tool, n) }, parent);
  const atStart = getToolLoopVerdict(span);
  const end: Attributes = { ...baseAttributes(tool, n) };
  if (outcome.args !== undefined) {
    end[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = outcome.args;
    end[sc.ATTR_OPENCLAW_CONTENT_TOOL_INPUT] = outcome.args;
  }
  if (outcome.result !== undefined) {
    end[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = outcome.result;
    end[sc.ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT] = outcome.result;
  }
  if (outcome.errorCategory) end['openclaw.errorCategory'] = outcome.errorCategory;
  span.setAttributes(end);
  if (outcome.errorCategory) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorCategory });
  span.end();
  return { span, atStart, atEnd: getToolLoopVerdict(span) };
}

const RESULT = JSON.stringify({ content: [{ type: 'text', text: 'pending' }], details: { status: 'pending' } });

describe('openClawAdapter', () => {
  it('judges openclaw.tool.execution at end, scoped by the enclosing openclaw.run, agent from openclaw.agent', async () => {
    const { tracer, events, exporter, processor } = await setup();
    const run = startRun(tracer);
    const calls = [1, 2, 3, 4, 5].map((n) =>
      toolExecution(tracer, run, 'exec', n, { args: '{"command":"make test"}', result: RESULT }),
    );
    expect(calls.every((c) => c.atStart === undefined)).toBe(true);
    expect(calls[2].atEnd?.level).toBe('warning');
    expect(calls[4].atEnd?.level).toBe('critical');
    const runKey = `${run.spanContext().traceId}/${run.spanContext().spanId}`;
    expect(events.map((e) => [e.level, e.runId, e.agentId])).toEqual([
      ['warning', runKey, 'main'],
      ['critical', runKey, 'main'],
    ]);
    expect(processor.getStats().liveRuns).toBe(1);
    run.end();
    expect(processor.getStats().liveRuns).toBe(0);
    const exported = exporter.getFinishedSpans().filter((s) => s.name === sc.OPENCLAW_SPAN_TOOL_EXECUTION);
    expect(exported[4].events.map((e) => e.name)).toContain(sc.EVENT_TOOL_LOOP_BLOCKED);
  });

  it('keeps runs apart: each openclaw.harness.run root has its own history and agent', async () => {
    const { tracer, events, processor } = await setup();
    for (const agent of ['a', 'b']) {
      const run = startRun(tracer, sc.OPENCLAW_SPAN_HARNESS_RUN, agent);
      for (let n = 1; n <= (agent === 'a' ? 2 : 3); n += 1)
        toolExecution(tracer, run, 'read', n, { args: '{"path":"x"}', result: RESULT });
      run.end();
    }
    expect(events.map((e) => e.agentId)).toEqual(['b']);
    expect(processor.getStats().releasedRuns['root-ended']).toBe(2);
  });

  it('judges at start a span OpenClaw creates at completion with its content already set', async () => {
    const { tracer } = await setup();
    const run = startRun(tracer);
    const parent = trace.setSpanContext(context.active(), run.spanContext());
    const verdicts = [1, 2, 3].map((n) => {
      const span = tracer.startSpan(
        sc.OPENCLAW_SPAN_TOOL_EXECUTION,
        {
          attributes: {
            ...baseAttributes('exec', n),
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"command":"ls"}',
            [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: RESULT,
          },
        },
        parent,
      );
      const verdict = getToolLoopVerdict(span);
      span.end();
      return verdict;
    });
    run.end();
    expect(verdicts[2]?.level).toBe('warning');
  });

  it("skips OpenClaw's own vetoes (openclaw.outcome = blocked), even with identical captured content", async () => {
    const { tracer, events, exporter } = await setup();
    const run = startRun(tracer);
    const parent = trace.setSpanContext(context.active(), run.spanContext());
    const ARGS = '{"command":"make test"}';
    // Vetoes carrying the same content as the real calls below: were they counted as calls,
    // the 3rd would warn and the 5th go critical (LOW_THRESHOLDS), as real calls do.
    const vetoes = [1, 2, 3, 4, 5].map((n) => {
      const content: Attributes = {
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: ARGS,
        [sc.ATTR_OPENCLAW_CONTENT_TOOL_INPUT]: ARGS,
      };
      const span = tracer.startSpan(
        sc.OPENCLAW_SPAN_TOOL_EXECUTION,
        {
          attributes: {
            ...baseAttributes('exec', n),
            ...content,
            [sc.ATTR_OPENCLAW_OUTCOME]: 'blocked',
            'openclaw.deniedReason': 'tool-loop',
          },
        },
        parent,
      );
      const atStart = getToolLoopVerdict(span);
      span.setAttributes({ [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: RESULT, [sc.ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT]: RESULT });
      span.end();
      return { atStart, atEnd: getToolLoopVerdict(span) };
    });
    expect(vetoes.every((v) => v.atStart === undefined && v.atEnd === undefined)).toBe(true);
    expect(events).toHaveLength(0);
    expect(exporter.getFinishedSpans().every((s) => s.attributes[sc.ATTR_TOOL_LOOP_VERDICT] === undefined)).toBe(true);

    // Real calls with the same content in the same run still count, from zero: the vetoes added
    // nothing to their history (else the 1st real call would already be past the thresholds).
    const calls = [6, 7, 8].map((n) => toolExecution(tracer, run, 'exec', n, { args: ARGS, result: RESULT }));
    run.end();
    expect(calls.map((c) => c.atEnd?.level)).toEqual([undefined, undefined, 'warning']);
    expect(events.map((e) => [e.level, e.toolName])).toEqual([['warning', 'exec']]);
  });

  it('without captureContent, calls of one tool are not mistaken for identical calls', async () => {
    const { tracer, events } = await setup();
    const run = startRun(tracer);
    for (let n = 1; n <= 8; n += 1) toolExecution(tracer, run, 'read', n, {});
    run.end();
    expect(events).toHaveLength(0);
  });

  it('error completions are error outcomes (status ERROR, message = errorCategory)', async () => {
    const { tracer, events } = await setup();
    const run = startRun(tracer);
    const calls = [1, 2, 3, 4, 5].map((n) =>
      toolExecution(tracer, run, 'exec', n, { args: '{"command":"false"}', errorCategory: 'tool_error' }),
    );
    run.end();
    expect(calls[4].atEnd?.level).toBe('critical');
    expect(events.at(-1)?.detector).toBe('generic_repeat');
  });

  it('redactContent removes gen_ai.tool.call.* and openclaw.content.tool_* attributes', async () => {
    const { tracer, exporter, events } = await setup({ redactContent: true });
    const run = startRun(tracer);
    for (let n = 1; n <= 3; n += 1) toolExecution(tracer, run, 'exec', n, { args: '{"command":"ls"}', result: RESULT });
    run.end();
    expect(events).toHaveLength(1);
    for (const span of exporter.getFinishedSpans().filter((s) => s.name === sc.OPENCLAW_SPAN_TOOL_EXECUTION)) {
      for (const key of [
        sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
        sc.ATTR_GEN_AI_TOOL_CALL_RESULT,
        sc.ATTR_OPENCLAW_CONTENT_TOOL_INPUT,
        sc.ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT,
      ]) {
        expect(span.attributes[key]).toBeUndefined();
      }
      expect(span.attributes[sc.ATTR_OPENCLAW_TOOL_NAME]).toBe('exec');
    }
  });
});
