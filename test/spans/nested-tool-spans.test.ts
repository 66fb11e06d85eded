import { context, ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceRun, traceToolCall } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import {
  createOtelHarness,
  endToolSpan,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
  startToolSpan,
  toolCall,
} from '../helpers/otel-harness.js';

// One call, two tool spans: a guarded traceToolCall in the body of an instrumentation's tool span.
// LOW_THRESHOLDS: warning on the 3rd identical call, critical on the 5th.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

const CALLS = 8;
const args = { orderId: '42' };

async function loop(
  outerCall: (tracer: ReturnType<typeof trace.getTracer>, body: () => Promise<unknown>) => Promise<void>,
) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS });
  let executions = 0;
  await traceRun(harness.tracer, { runId: 'nested', endOnSecondCritical: false }, async () => {
    for (let n = 0; n < CALLS; n += 1) {
      await outerCall(harness.tracer, () =>
        traceToolCall(harness.tracer, { name: 'lookup', args }, () => {
          executions += 1;
          return 'pending';
        }),
      );
    }
  });
  const levels = harness.loopEvents.map((event) => `${event.level}:${event.detector}`);
  return { levels, executions };
}

// Each blocked call is a loop veto that extends the streak: critical at 4 and 5, the breaker (6) after.
const once = [
  'warning:generic_repeat',
  'critical:generic_repeat',
  'critical:generic_repeat',
  ...Array.from({ length: CALLS - 6 }, () => 'critical:global_circuit_breaker'),
];

describe('nested tool spans are one call', () => {
  it('inside a GenAI span judged at start (ai@7): the outer verdict is the call’s, the inner span blocks', async () => {
    const { levels, executions } = await loop((tracer, body) =>
      tracer.startActiveSpan(
        'execute_tool lookup',
        {
          attributes: {
            [sc.ATTR_GEN_AI_TOOL_NAME]: 'lookup',
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
          },
        },
        async (outer) => {
          const result = await body();
          outer.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify(result));
          outer.end();
        },
      ),
    );
    // The warning on call 3 is emitted once (later ones are suppressed), the critical on every call from the 5th.
    expect(levels).toEqual(once);
    expect(executions).toBe(4);
  });

  it('inside an active span recognised only at end (Mastra): the inner span is the call', async () => {
    const { levels, executions } = await loop((tracer, body) =>
      tracer.startActiveSpan(`tool: 'lookup'`, async (outer: Span) => {
        const result = await body();
        outer.setAttributes({
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'lookup',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
          [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: JSON.stringify(result),
        });
        outer.end();
      }),
    );
    expect(levels).toEqual(once);
    expect(executions).toBe(4);
  });

  it('beside a span that is never made active (OpenInference): bare input.value and the args object are one call', async () => {
    const { levels, executions } = await loop(async (tracer, body) => {
      const outer = tracer.startSpan('lookup', {}, context.active());
      const result = await body();
      outer.setAttributes({
        [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL',
        [sc.ATTR_OPENINFERENCE_TOOL_NAME]: 'lookup',
        [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: '42',
        [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: JSON.stringify({ output: result }),
      });
      outer.end();
    });
    expect(levels).toEqual(once);
    expect(executions).toBe(4);
  });
});

// An outer tool span whose state moved out of the guard's newest eight (to its WeakMap): eight
// more tool spans, of another run, start while it is live, before the inner span does.
const NEWEST = 8;

/** How the inner call sees the outer span: as the active span, or only through its span context. */
type Under = 'span' | 'span-context';

async function spilledLoop(under: Under, spill: boolean) {
  const harness = await createOtelHarness({ config: LOW_THRESHOLDS });
  const { tracer } = harness;
  let executions = 0;
  const outers: Span[] = [];
  let traceId = '';
  await traceRun(tracer, { runId: 'nested', endOnSecondCritical: false }, async ({ span: root }) => {
    traceId = root.spanContext().traceId;
    for (let n = 0; n < CALLS; n += 1) {
      await tracer.startActiveSpan(
        'execute_tool lookup',
        {
          attributes: {
            [sc.ATTR_GEN_AI_TOOL_NAME]: 'lookup',
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(args),
          },
        },
        async (outer) => {
          outers.push(outer);
          const others = Array.from({ length: spill ? NEWEST : 0 }, (_, i) =>
            startToolSpan(tracer, { tool: 'other', args: { n, i }, runId: 'others', parent: ROOT_CONTEXT }),
          );
          const inner =
            under === 'span' ? context.active() : trace.setSpanContext(context.active(), outer.spanContext());
          const result = await context.with(inner, () =>
            traceToolCall(tracer, { name: 'lookup', args }, () => {
              executions += 1;
              // Calls the tool makes itself, under the inner span: three identical ones, in the inner's run.
              if (executions === 1)
                for (let k = 0; k < 3; k += 1) toolCall(tracer, { tool: 'fetch', args: {}, parent: context.active() });
              return 'pending';
            }),
          );
          for (const other of others) endToolSpan(other, { result: 'done' });
          outer.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify(result));
          outer.end();
        },
      );
    }
    // Once ended, an outer span is forgotten: a call under its span context alone is in the
    // trace's run, not in `nested` (three identical calls: one warning, in the trace's run).
    outers.forEach((outer, i) => {
      for (let k = 0; k < 3; k += 1)
        toolCall(tracer, {
          tool: `probe-${i}`,
          args: {},
          parent: trace.setSpanContext(ROOT_CONTEXT, outer.spanContext()),
        });
    });
  });
  const calls = harness.loopEvents.filter((event) => event.toolName === 'lookup');
  const fetches = harness.loopEvents.filter((event) => event.toolName === 'fetch');
  const probes = harness.loopEvents.filter((event) => event.toolName.startsWith('probe-'));
  return {
    levels: calls.map((event) => `${event.level}:${event.detector}`),
    runIds: [...new Set(calls.map((event) => event.runId))],
    fetches: fetches.map((event) => [event.level, event.runId]),
    probes: probes.map((event) => [event.toolName, event.level, event.runId === traceId ? 'trace' : event.runId]),
    executions,
  };
}

describe('nested tool spans whose outer span’s state moved out of the newest', () => {
  const probedInTrace = Array.from({ length: CALLS }, (_, i) => [`probe-${i}`, 'warning', 'trace']);

  it('under the outer span itself: still one call, judged by the outer span, in its run; the outer is forgotten at its end', async () => {
    const spilled = await spilledLoop('span', true);
    expect(spilled).toEqual({
      levels: once,
      runIds: ['nested'],
      fetches: [['warning', 'nested']],
      probes: probedInTrace,
      executions: 4,
    });
    expect(spilled).toEqual(await spilledLoop('span', false));
  });

  it('under a wrapper of the outer span’s context: in the outer’s run, as when it is among the newest; forgotten at its end', async () => {
    const newest = await spilledLoop('span-context', false);
    const spilled = await spilledLoop('span-context', true);
    // The wrapper is no live span: the inner span is a call of its own, but the outer's run's.
    expect(newest.runIds).toEqual(['nested']);
    expect(newest.fetches).toEqual([['warning', 'nested']]);
    expect(newest.probes).toEqual(probedInTrace);
    expect(spilled).toEqual(newest);
  });
});
