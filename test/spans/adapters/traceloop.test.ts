import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict } from '../../../src/index.js';
import { unwrapTraceloopInput } from '../../../src/spans/adapters/traceloop.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  type HarnessOptions,
} from '../../helpers/otel-harness.js';

// Span shapes of @traceloop/node-server-sdk `withTool` (src/lib/tracing/decorators.ts): the span is
// started with no attributes; inside it the SDK sets traceloop.span.kind, traceloop.entity.name and
// traceloop.entity.input = JSON {args: [], kwargs: <lone object param>} or {args: [...], kwargs: {}},
// then traceloop.entity.output = JSON of the return value before ending it.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

async function setup(options: HarnessOptions = {}) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS, ...options });
  return { ...harness, events: harness.loopEvents };
}

function withTool(tracer: Tracer, name: string, input: string, output: unknown, error?: Error) {
  return tracer.startActiveSpan(`${name}.tool`, {}, (span) => {
    const atStart = getToolLoopVerdict(span);
    span.setAttribute(sc.ATTR_TRACELOOP_SPAN_KIND, 'tool');
    span.setAttribute(sc.ATTR_TRACELOOP_ENTITY_NAME, name);
    span.setAttribute('traceloop.entity.path', '');
    span.setAttribute(sc.ATTR_TRACELOOP_ENTITY_INPUT, input);
    if (error) {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    } else {
      span.setAttribute(sc.ATTR_TRACELOOP_ENTITY_OUTPUT, JSON.stringify(output));
    }
    span.end();
    return { span, atStart, atEnd: getToolLoopVerdict(span) };
  });
}

function workflow<T>(tracer: Tracer, runId: string | undefined, fn: () => T): T {
  return tracer.startActiveSpan(
    'agent.workflow',
    { attributes: runId ? { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } : {} },
    (span) => {
      try {
        return fn();
      } finally {
        span.end();
      }
    },
  );
}

describe('traceloopAdapter', () => {
  it('matches tool spans at end (their attributes are set after start) and judges them there', async () => {
    const { tracer, events, exporter, processor } = await setup();
    const calls = workflow(tracer, 'tl-run', () =>
      [1, 2, 3, 4, 5].map(() =>
        withTool(tracer, 'check_status', '{"args":[],"kwargs":{"job":"a"}}', { state: 'running' }),
      ),
    );
    expect(calls.every((c) => c.atStart === undefined)).toBe(true);
    expect(calls[2].atEnd?.level).toBe('warning');
    expect(calls[4].atEnd?.level).toBe('critical');
    expect(events.map((e) => [e.level, e.runId, e.toolName])).toEqual([
      ['warning', 'tl-run', 'check_status'],
      ['critical', 'tl-run', 'check_status'],
    ]);
    const exported = exporter.getFinishedSpans().filter((s) => s.name === 'check_status.tool');
    expect(exported[4].events.map((e) => e.name)).toContain(sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(exported[4].attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    expect(processor.getStats().liveRuns).toBe(0);
  });

  it('unwraps the {args, kwargs} envelope: the same parameters hash alike in either form', async () => {
    expect(unwrapTraceloopInput('{"args":[],"kwargs":{"job":"a"}}')).toEqual({ job: 'a' });
    expect(unwrapTraceloopInput('{"args":[{"job":"a"}],"kwargs":{}}')).toEqual({ job: 'a' });
    expect(unwrapTraceloopInput('{"args":["a",2],"kwargs":{}}')).toEqual({ args: ['a', 2], kwargs: {} });
    expect(unwrapTraceloopInput('{"job":"a"}')).toEqual({ job: 'a' });
    const { tracer, events } = await setup();
    workflow(tracer, 'env', () => {
      withTool(tracer, 'check_status', '{"args":[],"kwargs":{"job":"a"}}', 1);
      withTool(tracer, 'check_status', '{"args":[{"job":"a"}],"kwargs":{}}', 1);
      withTool(tracer, 'check_status', '{"args":[],"kwargs":{"job":"a"}}', 1);
    });
    expect(events).toHaveLength(1);
  });

  it('scopes by trace when no run id is known', async () => {
    const { tracer, events } = await setup();
    const traceId = workflow(tracer, undefined, () => {
      for (let n = 0; n < 3; n += 1) withTool(tracer, 'search', '{"args":["q"],"kwargs":{}}', ['r']);
      return tracer.startSpan('probe').spanContext().traceId;
    });
    expect(events[0].runId).toBe(traceId);
  });

  it('redactContent removes traceloop.entity.input and .output', async () => {
    const { tracer, exporter, events } = await setup({ redactContent: true });
    workflow(tracer, 'red', () =>
      [1, 2, 3].forEach(() => withTool(tracer, 'search', '{"args":["q"],"kwargs":{}}', 'r')),
    );
    expect(events).toHaveLength(1);
    for (const span of exporter.getFinishedSpans().filter((s) => s.name === 'search.tool')) {
      expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_INPUT]).toBeUndefined();
      expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_OUTPUT]).toBeUndefined();
      expect(span.attributes[sc.ATTR_TRACELOOP_ENTITY_NAME]).toBe('search');
    }
  });

  it('ignores workflow and task spans', async () => {
    const { tracer, events } = await setup();
    workflow(tracer, 'w', () => {
      for (let n = 0; n < 5; n += 1) {
        tracer.startActiveSpan('plan.task', (span) => {
          span.setAttributes({
            [sc.ATTR_TRACELOOP_SPAN_KIND]: 'task',
            [sc.ATTR_TRACELOOP_ENTITY_NAME]: 'plan',
            [sc.ATTR_TRACELOOP_ENTITY_INPUT]: '{}',
          });
          span.end();
        });
      }
    });
    expect(events).toHaveLength(0);
  });
});
