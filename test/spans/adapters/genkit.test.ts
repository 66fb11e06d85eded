import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genkitAdapter, getToolLoopVerdict, traceRun } from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  resetOtelGlobals,
} from '../../helpers/otel-harness.js';

// Span shapes of genkit 1.42: a tool action starts with its type, subtype and key; its name,
// input and output are set as it ends.

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

const atStart = {
  [sc.ATTR_GENKIT_TYPE]: 'action',
  [sc.ATTR_GENKIT_SUBTYPE]: sc.GENKIT_SUBTYPE_TOOL,
  [sc.ATTR_GENKIT_KEY]: '/tool/lookup_order',
};

describe('genkitAdapter', () => {
  it('recognises a tool action at start by its key, and reads arguments and result at end', () => {
    expect(genkitAdapter.matchStart({ name: 'lookup_order', attributes: atStart })).toEqual({
      toolName: 'lookup_order',
      arguments: undefined,
    });
    const ended = {
      name: 'lookup_order',
      attributes: { ...atStart, [sc.ATTR_GENKIT_INPUT]: '{"orderId":"42"}', [sc.ATTR_GENKIT_OUTPUT]: '"pending"' },
    };
    const end = genkitAdapter.readEnd(ended);
    expect([end.arguments, end.result, end.isError]).toEqual(['{"orderId":"42"}', '"pending"', false]);
    expect(
      genkitAdapter.matchStart({ name: 'generate', attributes: { [sc.ATTR_GENKIT_TYPE]: 'util' } }),
    ).toBeUndefined();
  });

  it('judges tool actions at end; a failed action is an error outcome', async () => {
    const { tracer, loopEvents } = await createOtelHarness({ config: LOW_THRESHOLDS });
    const verdicts: (string | undefined)[] = [];
    await traceRun(tracer, { runId: 'genkit' }, () => {
      for (let n = 0; n < 5; n += 1) {
        const span = tracer.startSpan('lookup_order', { attributes: atStart });
        expect(getToolLoopVerdict(span)).toBeUndefined();
        span.setAttributes({ [sc.ATTR_GENKIT_NAME]: 'lookup_order', [sc.ATTR_GENKIT_INPUT]: '{"orderId":"42"}' });
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'order service down' });
        span.end();
        verdicts.push(getToolLoopVerdict(span)?.level);
      }
    }).catch(() => undefined);
    expect(verdicts).toEqual([undefined, undefined, 'warning', 'warning', 'critical']);
    expect(loopEvents[0].toolName).toBe('lookup_order');
  });
});
