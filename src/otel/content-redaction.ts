import { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT } from '../semconv.js';
import type { ToolSpanAdapter } from '../spans/adapters/adapter.js';
import { declaresTriggers } from '../spans/span-triggers.js';
import type { SpanView } from '../spans/span-view.js';

/** The GenAI content attributes: removed from every span. */
const GEN_AI_CONTENT = [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT] as const;

/** One adapter's content keys and key prefixes, and the marks of the spans they are taken from. */
interface AdapterContent {
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
  /** `undefined`: the adapter declares no triggers, so every span may be one of its own. */
  readonly attributes?: readonly string[];
  readonly spanNames?: ReadonlySet<string>;
}

/**
 * Which attributes `redactContent` removes from a span: the GenAI content attributes from any
 * span, and each adapter's content attributes (and those under its content prefixes: flattened
 * message lists) from every span that carries that adapter's triggers — whether or not the adapter took it for a call to judge. So the spans an adapter
 * recognises but does not judge (OpenClaw's own veto spans) or cannot name (an OpenInference
 * `TOOL` span with a blank name) lose their content too, and so do the convention's other
 * spans (OpenInference LLM spans' `input.value` holds the tool results it was sent).
 */
export class ContentRedaction {
  private constructor(private readonly adapters: readonly AdapterContent[]) {}

  static of(adapters: readonly ToolSpanAdapter[]): ContentRedaction {
    const content: AdapterContent[] = [];
    for (const adapter of adapters) {
      const keys = strings(adapter.contentAttributes);
      const prefixes = strings(adapter.contentAttributePrefixes).filter((prefix) => prefix !== '');
      if (keys.length === 0 && prefixes.length === 0) continue;
      content.push(
        declaresTriggers(adapter)
          ? {
              keys,
              prefixes,
              attributes: adapter.triggers!.attributes,
              spanNames: new Set(adapter.triggers!.spanNames ?? []),
            }
          : { keys, prefixes },
      );
    }
    return new ContentRedaction(content);
  }

  /** The content attributes to remove from this span (some may be absent from it). */
  keysFor(span: SpanView): string[] {
    const keys: string[] = [...GEN_AI_CONTENT];
    let prefixes: string[] | undefined;
    for (const adapter of this.adapters) {
      if (!carriesTriggers(span, adapter)) continue;
      keys.push(...adapter.keys);
      if (adapter.prefixes.length > 0) (prefixes ??= []).push(...adapter.prefixes);
    }
    if (prefixes)
      for (const key of Object.keys(span.attributes))
        if (prefixes.some((prefix) => key.startsWith(prefix))) keys.push(key);
    return keys;
  }
}

/** The strings of a custom adapter's list (anything else: none). */
function strings(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

function carriesTriggers(span: SpanView, adapter: AdapterContent): boolean {
  if (adapter.attributes === undefined) return true;
  for (const key of adapter.attributes) if (span.attributes[key] !== undefined) return true;
  return adapter.spanNames!.has(span.name);
}
