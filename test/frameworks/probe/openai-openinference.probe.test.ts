import { describe, expect, it } from 'vitest';
import { probeOpenAi } from '../harness/openai-probe.js';

const record = probeOpenAi('openinference');

describe('what @arizeai/openinference-instrumentation-openai 4.2.7 emits for a hand-written openai loop', () => {
  it('one LLM span per model call, bare at start, its flattened messages (with call ids) set right after', async () => {
    const spans = await record();
    expect(spans).toHaveLength(31);
    const [, second] = spans;
    expect(second.name).toBe('OpenAI Chat Completions');
    expect(second.atStart).toEqual({});
    expect(second.atEnding).toMatchObject({
      'openinference.span.kind': 'LLM',
      'llm.input_messages.2.message.role': 'tool',
      'llm.input_messages.2.message.tool_call_id': 'call_0',
      'llm.input_messages.2.message.content': 'status: pending',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup_order',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"orderId":"order-42"}',
    });
    // Every span is its own trace without an enclosing span.
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(31);
  });
});
