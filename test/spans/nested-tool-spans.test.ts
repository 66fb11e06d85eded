import { context, trace, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceRun, traceToolCall } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { createOtelHarness, installContextManager, LOW_THRESHOLDS, resetOtelGlobals } from '../helpers/otel-harness.js';

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
