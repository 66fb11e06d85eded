import type { ToolSpanAdapter } from './adapter.js';
import { genAiAdapter } from './gen-ai.js';

export type { RunScopeHint, ToolCallEnd, ToolCallStart, ToolSpanAdapter } from './adapter.js';
export { genAiAdapter } from './gen-ai.js';

/** The built-in adapters, in the order they are tried (first match wins). */
export const DEFAULT_ADAPTERS: readonly ToolSpanAdapter[] = [genAiAdapter];
