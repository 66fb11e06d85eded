import {
  ATTR_GENKIT_INPUT,
  ATTR_GENKIT_KEY,
  ATTR_GENKIT_NAME,
  ATTR_GENKIT_OUTPUT,
  ATTR_GENKIT_SUBTYPE,
  GENKIT_SUBTYPE_TOOL,
} from '../../semconv.js';
import type { SpanView } from '../span-view.js';
import type { ToolCallStart, ToolSpanAdapter } from './adapter.js';
import { readToolCallEnd, stringValue } from './attribute-values.js';

const TOOL_KEY_PREFIX = `/${GENKIT_SUBTYPE_TOOL}/`;

/** The tool's name: `genkit:name` (set at end), else the action key `/tool/<name>` (set at start), else the span name. */
function toolNameOf(span: SpanView): string | undefined {
  const named = stringValue(span.attributes[ATTR_GENKIT_NAME]);
  if (named !== undefined) return named;
  const key = stringValue(span.attributes[ATTR_GENKIT_KEY]);
  if (key?.startsWith(TOOL_KEY_PREFIX) && key.length > TOOL_KEY_PREFIX.length) return key.slice(TOOL_KEY_PREFIX.length);
  return span.name.trim() || undefined;
}

function match(span: SpanView): ToolCallStart | undefined {
  if (span.attributes[ATTR_GENKIT_SUBTYPE] !== GENKIT_SUBTYPE_TOOL) return undefined;
  const toolName = toolNameOf(span);
  return toolName === undefined ? undefined : { toolName, arguments: span.attributes[ATTR_GENKIT_INPUT] };
}

/**
 * Genkit's own OTel spans (`genkit`, `@genkit-ai/core` 1.x): a tool is an action span named
 * after the tool with `genkit:metadata:subtype` = `tool` and `genkit:key` = `/tool/<name>` from
 * its start; `genkit:name`, `genkit:input` (JSON arguments) and `genkit:output` (JSON result)
 * are set as it ends, a failure as status ERROR. Calls are judged **at end** (detect, annotate,
 * abort — not block). No call id, no session: run scope is the trace, or `traceRun`'s run when
 * Genkit's root-span detection is off (`disableOTelRootSpanDetection()`), else every `generate`
 * starts its own trace.
 */
export const genkitAdapter: ToolSpanAdapter = {
  name: 'genkit',
  contentAttributes: [ATTR_GENKIT_INPUT, ATTR_GENKIT_OUTPUT],
  triggers: { attributes: [ATTR_GENKIT_SUBTYPE] },
  matchStart: match,
  matchEnd: match,
  readEnd(span) {
    return readToolCallEnd(span, span.attributes[ATTR_GENKIT_INPUT], span.attributes[ATTR_GENKIT_OUTPUT]);
  },
};
