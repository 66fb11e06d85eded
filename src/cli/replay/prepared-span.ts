import type { Attributes } from '@opentelemetry/api';
import type { Digester } from '../../engine/hashing/digest.js';
import type { OutcomeHash } from '../../engine/hashing/outcome-hash.js';
import type { ToolCallSignature } from '../../engine/types.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import {
  describeAtEnd,
  describeToolSpanCall,
  hashToolSpanOutcome,
  knownAtStart,
  matchSpanEnd,
  readSpanStart,
  type SpanReading,
  type ToolCallSource,
} from '../../spans/span-reading.js';
import { boundedEnd } from '../../spans/bounded-reading.js';
import type { SpanView } from '../../spans/span-view.js';
import { modelCallTokens } from '../../otel/model-usage.js';

/**
 * A finished tool span reduced to what detection needs: hashes, never raw content. It answers
 * the span guard from what was hashed once, so one file can be replayed under many settings.
 */
export class PreparedToolCall implements ToolCallSource<unknown> {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  /** The name of the adapter that recognised the span. */
  readonly adapterName: string;
  /** True when the call is judged at span start (arguments known at start); else at end. */
  readonly atStart: boolean;
  readonly call: ToolCallSignature;
  readonly hashedOutcome: OutcomeHash;

  constructor(prepared: Omit<PreparedToolCall, 'callAtStart' | 'callAtEnd' | 'outcome'>) {
    this.toolName = prepared.toolName;
    this.toolCallId = prepared.toolCallId;
    this.adapterName = prepared.adapterName;
    this.atStart = prepared.atStart;
    this.call = prepared.call;
    this.hashedOutcome = prepared.hashedOutcome;
  }

  callAtStart(): ToolCallSignature | undefined {
    return this.atStart ? this.call : undefined;
  }

  callAtEnd(): ToolCallSignature {
    return this.call;
  }

  outcome(): OutcomeHash {
    return this.hashedOutcome;
  }
}

/** A finished span reduced to what replay needs; its start reading is what the span guard reads. */
export interface PreparedSpan extends SpanReading<unknown> {
  /** A tool span recognised only at its end (`matchEnd`): at start it resolves its scope as a non-tool span. */
  readonly lateTool?: PreparedToolCall;
  /** For a span that is no tool call: the tokens it reports as a model call (absent when none). */
  readonly modelTokens?: number;
}

/**
 * Reads and hashes a finished span once: start reading, then (for tool spans) the call —
 * from the start reading when arguments were known at start, else from the end reading —
 * and the outcome hash; for other spans, the tokens a model call reports, charged to its run
 * as the processor does. Hashing does not depend on config or run scope, so the result can be
 * replayed under any number of settings.
 */
export function prepareSpan(adapters: readonly ToolSpanAdapter[], digester: Digester, span: SpanView): PreparedSpan {
  const reading = readSpanStart(adapters, span);
  const base = { hint: reading.hint, compactionRetry: reading.compactionRetry };
  let { start, adapter } = reading;
  let matchedAtEnd = false;
  if (!start) {
    // Live, such a span is recognised by `matchEnd` as it ends and judged then. In a file the
    // final attributes are all there is, so a convention whose `matchStart` would have
    // matched the final attributes is judged at start (see docs/analyze.md, limits).
    const late = matchSpanEnd(adapters, span);
    if (late) [start, adapter, matchedAtEnd] = [late.start, late.adapter, true];
  }
  if (!start || !adapter) {
    const tokens = modelCallTokens(span.attributes as Attributes);
    return tokens > 0 ? { ...base, modelTokens: tokens } : base;
  }
  const end = boundedEnd(adapter.readEnd(span), start.toolName);
  const atStart = !matchedAtEnd && knownAtStart(start);
  const described = atStart ? describeToolSpanCall(digester, start) : describeAtEnd(digester, start, end);
  const tool = new PreparedToolCall({
    adapterName: adapter.name,
    toolName: start.toolName,
    toolCallId: start.toolCallId,
    atStart,
    call: described.call,
    hashedOutcome: hashToolSpanOutcome(digester, { toolName: start.toolName, params: described.params }, end),
  });
  return matchedAtEnd ? { ...base, lateTool: tool } : { ...base, tool };
}
