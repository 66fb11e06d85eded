/**
 * Processors that do the least a processor of their kind must do: what ours is put beside when a
 * ratio against the SDK alone would charge ours for costs that are not its own.
 */
import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_ADAPTERS, semconv } from '../src/index.js';

/**
 * A processor with ours' three hooks, each doing nothing: what the SDK's dispatch to one more
 * processor costs, the least any processor beside another can cost.
 */
export const EMPTY_PROCESSOR: SpanProcessor = {
  onStart() {},
  onEnding() {},
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/** A processor that looks for tool spans by their attributes and does nothing else. */
export interface AttributeCheckProcessor extends SpanProcessor {
  /** Spans whose attributes or name matched (none on plain spans). */
  readonly matched: number;
}

/**
 * The least a processor that finds tool spans by their attributes does: at a span's start and
 * again at its end (attributes may be set after the start), it looks up each attribute key the
 * default adapters and the compaction markers name, and compares the span's name with the span
 * names they name. Ours does this and no more on a span that concerns no run.
 */
export function attributeCheckProcessor(): AttributeCheckProcessor {
  const keys = [
    ...new Set([
      ...DEFAULT_ADAPTERS.flatMap((adapter) => adapter.triggers?.attributes ?? []),
      semconv.ATTR_COMPACTION_RETRY,
      semconv.ATTR_GEN_AI_CONVERSATION_COMPACTED,
    ]),
  ];
  const names = new Set(DEFAULT_ADAPTERS.flatMap((adapter) => adapter.triggers?.spanNames ?? []));
  let matched = 0;
  const check = (span: Span): void => {
    const { attributes } = span;
    for (const key of keys)
      if (attributes[key] !== undefined) {
        matched += 1;
        return;
      }
    if (names.has(span.name)) matched += 1;
  };
  return {
    onStart: check,
    onEnding: check,
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    get matched() {
      return matched;
    },
  };
}
