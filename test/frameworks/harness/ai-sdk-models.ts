import { MockLanguageModelV2 } from 'ai5/test';
import { MockLanguageModelV3 } from 'ai6/test';
import { MockLanguageModelV4 } from 'ai/test';
import { argsFor, CALLS, TOOL_NAME, type Variant } from './scenario.js';

type V2Result = Awaited<ReturnType<MockLanguageModelV2['doGenerate']>>;
type V3Result = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type V4Result = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

/** The scripted model's turn at `step`: a tool call for the first CALLS steps, then an answer. */
interface Turn {
  toolCall?: { toolCallId: string; toolName: string; input: string };
  text?: string;
}

function turn(variant: Variant, step: number): Turn {
  if (step >= CALLS) return { text: 'done' };
  return { toolCall: { toolCallId: `call-${step}`, toolName: TOOL_NAME, input: JSON.stringify(argsFor(variant, step)) } };
}

const USAGE_V3 = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** AI SDK 5 (LanguageModelV2). */
export function scriptedModelV2(variant: Variant): MockLanguageModelV2 {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async (): Promise<V2Result> => {
      const { toolCall, text } = turn(variant, step++);
      return {
        content: toolCall ? [{ type: 'tool-call', ...toolCall }] : [{ type: 'text', text: text ?? '' }],
        finishReason: toolCall ? 'tool-calls' : 'stop',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        warnings: [],
      };
    },
  });
}

// LanguageModelV3 and V4 share the shape of a generate result.
function resultV3(turnAt: Turn): V3Result & V4Result {
  const { toolCall, text } = turnAt;
  return {
    content: toolCall ? [{ type: 'tool-call', ...toolCall }] : [{ type: 'text', text: text ?? '' }],
    finishReason: toolCall ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage: USAGE_V3,
    warnings: [],
  };
}

/** AI SDK 6 (LanguageModelV3). */
export function scriptedModelV3(variant: Variant): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({ doGenerate: async () => resultV3(turn(variant, step++)) });
}

/** AI SDK 7 (LanguageModelV4). */
export function scriptedModelV4(variant: Variant): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({ doGenerate: async () => resultV3(turn(variant, step++)) });
}
