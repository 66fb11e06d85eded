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
 * The attribute keys and span names {@link attributeCheckProcessor} looks for, written out: the
 * triggers of the default adapters and the two compaction markers. `attributeCheckDrift` says
 * when they no longer are.
 */
const CHECKED_KEYS: readonly string[] = [
  semconv.ATTR_OPENCLAW_AGENT,
  semconv.ATTR_AI_OPERATION_ID,
  semconv.ATTR_OPENINFERENCE_SPAN_KIND,
  semconv.ATTR_TRACELOOP_SPAN_KIND,
  semconv.ATTR_LLM_REQUEST_TYPE,
  semconv.ATTR_GENKIT_SUBTYPE,
  semconv.ATTR_VOLTAGENT_OPERATION_ID,
  semconv.ATTR_GEN_AI_TOOL_NAME,
  semconv.ATTR_TOOL_LOOP_RUN_ID,
  semconv.ATTR_GEN_AI_AGENT_ID,
  semconv.ATTR_GEN_AI_CONVERSATION_ID,
  semconv.ATTR_GEN_AI_OPERATION_NAME,
  semconv.ATTR_COMPACTION_RETRY,
  semconv.ATTR_GEN_AI_CONVERSATION_COMPACTED,
];
const CHECKED_NAMES: readonly string[] = [
  semconv.OPENCLAW_SPAN_TOOL_EXECUTION,
  semconv.OPENCLAW_SPAN_RUN,
  semconv.OPENCLAW_SPAN_HARNESS_RUN,
  semconv.AI_SDK_TOOL_CALL,
];

/** Whether a span carries one of {@link CHECKED_KEYS} or has one of {@link CHECKED_NAMES}. */
function mayBeToolSpan(span: Span): boolean {
  const a = span.attributes;
  const { name } = span;
  return (
    a[semconv.ATTR_OPENCLAW_AGENT] !== undefined ||
    a[semconv.ATTR_AI_OPERATION_ID] !== undefined ||
    a[semconv.ATTR_OPENINFERENCE_SPAN_KIND] !== undefined ||
    a[semconv.ATTR_TRACELOOP_SPAN_KIND] !== undefined ||
    a[semconv.ATTR_LLM_REQUEST_TYPE] !== undefined ||
    a[semconv.ATTR_GENKIT_SUBTYPE] !== undefined ||
    a[semconv.ATTR_VOLTAGENT_OPERATION_ID] !== undefined ||
    a[semconv.ATTR_GEN_AI_TOOL_NAME] !== undefined ||
    a[semconv.ATTR_TOOL_LOOP_RUN_ID] !== undefined ||
    a[semconv.ATTR_GEN_AI_AGENT_ID] !== undefined ||
    a[semconv.ATTR_GEN_AI_CONVERSATION_ID] !== undefined ||
    a[semconv.ATTR_GEN_AI_OPERATION_NAME] !== undefined ||
    a[semconv.ATTR_COMPACTION_RETRY] !== undefined ||
    a[semconv.ATTR_GEN_AI_CONVERSATION_COMPACTED] !== undefined ||
    name === semconv.OPENCLAW_SPAN_TOOL_EXECUTION ||
    name === semconv.OPENCLAW_SPAN_RUN ||
    name === semconv.OPENCLAW_SPAN_HARNESS_RUN ||
    name === semconv.AI_SDK_TOOL_CALL
  );
}

/**
 * What differs between the keys and names the attribute check looks for and those the default
 * adapters' triggers and the compaction markers name (empty when none): the check must look for
 * the same ones as ours to be its lower bound.
 */
export function attributeCheckDrift(): string[] {
  const keys = new Set([
    ...DEFAULT_ADAPTERS.flatMap((adapter) => adapter.triggers?.attributes ?? []),
    semconv.ATTR_COMPACTION_RETRY,
    semconv.ATTR_GEN_AI_CONVERSATION_COMPACTED,
  ]);
  const names = new Set(DEFAULT_ADAPTERS.flatMap((adapter) => adapter.triggers?.spanNames ?? []));
  const differing = (wanted: ReadonlySet<string>, checked: readonly string[]) => [
    ...[...wanted].filter((key) => !checked.includes(key)).map((key) => `'${key}' not checked`),
    ...checked.filter((key) => !wanted.has(key)).map((key) => `'${key}' checked but no trigger`),
  ];
  return [...differing(keys, CHECKED_KEYS), ...differing(names, CHECKED_NAMES)];
}

/**
 * The work every processor that finds tool spans by their attributes does, written plainly: at
 * a span's start and again at its end (attributes may be set after the start), it looks up each
 * attribute key the default adapters' triggers and the compaction markers name, each at a load
 * site of its own (a site that sees one key is V8's fastest lookup), and compares the span's name
 * with their span names. Ours does this and little more on a span that concerns no run.
 */
export function attributeCheckProcessor(): AttributeCheckProcessor {
  let matched = 0;
  const check = (span: Span): void => {
    if (mayBeToolSpan(span)) matched += 1;
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

/**
 * Ratios of the plain span's processors beside the pipeline, as [numerator, denominator]
 * variants: what one more processor costs there, what the least attribute check costs, and
 * ours against each. The timing bench and the instruction counts report the same ones.
 */
export const LOWER_BOUND_RATIOS: ReadonlyArray<readonly [string, string]> = [
  ['pipeline + empty processor', 'pipeline'],
  ['pipeline + ours', 'pipeline + empty processor'],
  ['pipeline + attribute check', 'pipeline'],
  ['pipeline + ours', 'pipeline + attribute check'],
];

/** A ratio's figure name: `plain: (pipeline + ours) / (pipeline + empty processor)`. */
export function ratioName(kind: string, numerator: string, denominator: string): string {
  const term = (variant: string) => (variant.includes('+') ? `(${variant})` : variant);
  return `${kind}: ${term(numerator)} / ${term(denominator)}`;
}
