import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { argsFor, CALLS, TOOL_NAME, type Variant } from './scenario.js';

/**
 * A LangChain chat model that asks for the scenario's tool call until it has seen CALLS tool
 * results, then answers. Its turn is read from the conversation (the number of tool messages),
 * so it is stateless like a real model. `@langchain/core`'s own fakes return one fixed message.
 */
export class ScriptedToolCallingModel extends BaseChatModel {
  constructor(
    private readonly variant: Variant,
    params: BaseChatModelParams = {},
  ) {
    super(params);
  }

  _llmType(): string {
    return 'scripted-tool-calling';
  }

  // createReactAgent binds its tools; the script already knows which tool it calls.
  bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const step = messages.filter((message) => ToolMessage.isInstance(message)).length;
    const message =
      step >= CALLS
        ? new AIMessage({ content: 'done' })
        : new AIMessage({ content: '', tool_calls: [{ id: `call-${step}`, name: TOOL_NAME, args: { ...argsFor(this.variant, step) }, type: 'tool_call' }] });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
