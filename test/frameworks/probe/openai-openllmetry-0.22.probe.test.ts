import { describe, expect, it } from 'vitest';
import { probeOpenAi } from '../harness/openai-probe.js';

const record = probeOpenAi('openllmetry-0.22');

describe('what @traceloop/instrumentation-openai 0.22.5 emits for a hand-written openai loop', () => {
  it('one span per model call with flattened prompts (at start) and completions (at end), and no call ids', async () => {
    const spans = await record();
    expect(spans).toHaveLength(31);
    const [, second] = spans;
    expect(second.name).toBe('openai.chat');
    expect(second.atStart).toMatchObject({
      'llm.request.type': 'chat',
      'gen_ai.prompt.1.role': 'assistant',
      'gen_ai.prompt.2.role': 'tool',
      'gen_ai.prompt.2.content': 'status: pending',
    });
    expect(second.atEnding).toMatchObject({
      'gen_ai.completion.0.tool_calls.0.name': 'lookup_order',
      'gen_ai.completion.0.tool_calls.0.arguments': '{"orderId":"order-42"}',
    });
    const keys = Object.keys(second.atEnding ?? {});
    expect(keys.filter((key) => key.endsWith('.id') || key.endsWith('tool_call_id'))).toEqual([]);
  });
});
