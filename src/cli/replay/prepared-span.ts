import type { Digester } from '../../engine/hashing/digest.js';
import type { OutcomeHash } from '../../engine/hashing/outcome-hash.js';
import type { ToolSpanAdapter, RunScopeHint } from '../../spans/adapters/adapter.js';
import type { SpanView } from '../../spans/span-view.js';
import {
  describeAtEnd,
  describeToolSpanCall,
  hashToolSpanOutcome,
  knownAtStart,
  matchSpanEnd,
  readSpanStart,
  type CallIdentity,
} from '../../spans/span-reading.js';

/** A finished tool span reduced to what detection needs: hashes, never raw content. */
export interface PreparedToolCall {
  readonly adapter: string;
  readonly toolName: string;
  readonly toolCallId?: string;
  /** True when the call is judged at span start (arguments known at start); else at end. */
  readonly atStart: boolean;
  /** Recognised only at span end (`matchEnd`): the span resolved its scope as a non-tool span. */
  readonly matchedAtEnd?: boolean;
  readonly identity: CallIdentity;
  readonly outcome: OutcomeHash;
}

/** A finished span reduced to what replay needs. */
export interface PreparedSpan {
  readonly hint?: RunScopeHint;
  readonly compactionRetry: boolean;
  readonly tool?: PreparedToolCall;
}

/**
 * Reads and hashes a finished span once: start reading, then (for tool spans) the
 * identity — from the start reading when arguments were known at start, else from the end
 * reading — and the outcome hash. Hashing does not depend on config or run scope, so the
 * result can be replayed under any number of settings.
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
  if (!start || !adapter) return base;
  const end = adapter.readEnd(span);
  const atStart = !matchedAtEnd && knownAtStart(start);
  const described = atStart
    ? describeToolSpanCall(digester, start.toolName, start.argsHash, start.knownPoll, start.arguments)
    : describeAtEnd(digester, start, end);
  const tool: PreparedToolCall = {
    adapter: adapter.name,
    toolName: start.toolName,
    ...(start.toolCallId !== undefined ? { toolCallId: start.toolCallId } : {}),
    atStart,
    ...(matchedAtEnd ? { matchedAtEnd } : {}),
    identity: described.identity,
    outcome: hashToolSpanOutcome(digester, start.toolName, described.params, end),
  };
  return { ...base, tool };
}
