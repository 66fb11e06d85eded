import { describe, expect, it } from 'vitest';
import { probeOpenAi } from '../harness/openai-probe.js';

const record = probeOpenAi('openllmetry');

describe('what @traceloop/instrumentation-openai 0.27.0 emits for a hand-written openai loop', () => {
  it('one GenAI chat span per model call: input messages (JSON) at start, output messages (JSON, with call ids) at end', async () => {
    const spans = await record();
    expect(spans).toHaveLength(31);
    const [, second] = spans;
    expect(second.name).toBe('chat scripted-loop');
    expect(second.atStart['gen_ai.operation.name']).toBe('chat');
    const input = JSON.parse(String(second.atStart['gen_ai.input.messages'])) as unknown[];
    expect(input[2]).toEqual({ role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_0', response: 'status: pending' }] });
    expect(second.atStart['gen_ai.output.messages']).toBeUndefined();
    const output = JSON.parse(String(second.atEnding?.['gen_ai.output.messages'])) as Array<{ parts: unknown[] }>;
    expect(output[0].parts).toEqual([{ type: 'tool_call', id: 'call_1', name: 'lookup_order', arguments: { orderId: 'order-42' } }]);
  });
});
