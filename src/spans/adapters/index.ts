import type { ToolSpanAdapter } from './adapter.js';
import { aiSdkAdapter } from './ai-sdk.js';
import { genAiAdapter } from './gen-ai.js';
import { genkitAdapter } from './genkit.js';
import { openClawAdapter } from './openclaw.js';
import { openInferenceAdapter } from './openinference.js';
import { openLlmetryLangChainAdapter } from './openllmetry-langchain.js';
import { traceloopAdapter } from './traceloop.js';
import { voltAgentAdapter } from './voltagent.js';

export type {
  AdapterTriggers,
  ChatToolCalls,
  RequestedToolCall,
  RunScopeHint,
  ToolCallEnd,
  ToolCallStart,
  ToolResultMessage,
  ToolSpanAdapter,
} from './adapter.js';
export { aiSdkAdapter } from './ai-sdk.js';
export { genAiAdapter } from './gen-ai.js';
export { genkitAdapter } from './genkit.js';
export { openClawAdapter } from './openclaw.js';
export { openInferenceAdapter } from './openinference.js';
export { openLlmetryLangChainAdapter } from './openllmetry-langchain.js';
export { traceloopAdapter } from './traceloop.js';
export { voltAgentAdapter } from './voltagent.js';

/**
 * The built-in adapters, in the order they are tried (first match wins). The specific
 * conventions come before the generic GenAI one: OpenClaw's tool spans also carry
 * `gen_ai.tool.name`, and its adapter knows their extra content attributes and vetoes.
 * Scope hints are merged across all adapters, earlier ones first.
 */
export const DEFAULT_ADAPTERS: readonly ToolSpanAdapter[] = [
  openClawAdapter,
  aiSdkAdapter,
  openInferenceAdapter,
  traceloopAdapter,
  openLlmetryLangChainAdapter,
  genkitAdapter,
  voltAgentAdapter,
  genAiAdapter,
];
