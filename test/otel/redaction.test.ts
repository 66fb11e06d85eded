import { context, trace, type Context } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import * as sc from '../../src/semconv.js';
import { createOtelHarness, resetOtelGlobals, spanAttributes, W2_C3 } from '../helpers/otel-harness.js';

afterEach(resetOtelGlobals);

describe('redactContent', () => {
  it('removes GenAI content from any span and each adapter its own, after hashing', async () => {
    const h = await createOtelHarness({
      config: W2_C3,
      redactContent: true,
    });
    const aiSdkCall = (parent: Context) => {
      const span = h.tracer.startSpan(
        sc.AI_SDK_TOOL_CALL,
        {
          attributes: {
            [sc.ATTR_AI_OPERATION_ID]: sc.AI_SDK_TOOL_CALL,
            [sc.ATTR_AI_TOOL_CALL_NAME]: 'read',
            [sc.ATTR_AI_TOOL_CALL_ARGS]: '{"path":"secret.txt"}',
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"path":"secret.txt"}',
          },
        },
        parent,
      );
      span.setAttribute(sc.ATTR_AI_TOOL_CALL_RESULT, '"top secret"');
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, '"top secret"');
      span.end();
      return span;
    };
    const run = h.tracer.startSpan('agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'r' } });
    const inRun = trace.setSpan(context.active(), run);
    const spans = [0, 1, 2].map(() => aiSdkCall(inRun));
    const plain = h.tracer.startSpan('http', { attributes: { [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'leaked?' } });
    plain.end();
    run.end();
    for (const span of [...spans, plain]) {
      const keys = Object.keys(spanAttributes(span));
      for (const key of [
        sc.ATTR_AI_TOOL_CALL_ARGS,
        sc.ATTR_AI_TOOL_CALL_RESULT,
        sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
        sc.ATTR_GEN_AI_TOOL_CALL_RESULT,
      ]) {
        expect(keys).not.toContain(key);
      }
    }
    // Hashing happened before redaction: the same arguments and result were recognised as a repeat.
    expect(h.loopEvents.map((e) => e.level)).toEqual(['warning']);
  });
});
