import type { Digester } from '../engine/hashing/digest.js';
import { hashToolOutcome, type OutcomeHash } from '../engine/hashing/outcome-hash.js';
import { describeToolCall } from '../engine/hashing/tool-call.js';
import type { RunScopeHint, ToolCallEnd, ToolCallStart, ToolSpanAdapter } from './adapters/adapter.js';
import { parseJsonAttribute } from './json-attribute.js';
import type { SpanView } from './span-view.js';
import { ATTR_COMPACTION_RETRY } from '../semconv.js';

/**
 * Framework-free readings of a span through the adapters — what the span processor does in
 * `onStart` / `onEnding` and the offline analyzer does for spans decoded from files, so that
 * both judge a span the same way.
 */

/** What the adapters say about a starting span. */
export interface SpanStartReading {
  /** The first adapter that recognised a tool span, and its reading. */
  readonly adapter?: ToolSpanAdapter;
  readonly start?: ToolCallStart;
  /** Run-scope hints merged over every adapter (first non-empty value of each field wins). */
  readonly hint?: RunScopeHint;
  /** `compaction.retry` = true: the span arms the post-compaction guard of its run. */
  readonly compactionRetry: boolean;
}

/** A tool call's identity without its run scope. */
export interface CallIdentity {
  readonly toolName: string;
  readonly argsHash: string;
  readonly knownPoll: boolean;
}

/** A described call and the params its outcome projection needs. */
export interface DescribedCall {
  readonly identity: CallIdentity;
  /** Parsed arguments (absent when a pre-computed args hash was used). */
  readonly params?: unknown;
}

/** The reading of a span that is none of the adapters' business. */
export const NOTHING_TO_READ: SpanStartReading = Object.freeze({ compactionRetry: false });

/** Runs the adapters over a starting span, exactly as the processor's `onStart` does. */
export function readSpanStart(adapters: readonly ToolSpanAdapter[], span: SpanView): SpanStartReading {
  let start: ToolCallStart | undefined;
  let adapter: ToolSpanAdapter | undefined;
  let hint: RunScopeHint | undefined;
  let rejected = false;
  for (const candidate of adapters) {
    if (!start && !rejected) {
      const match = candidate.matchStart(span);
      if (match) {
        start = match;
        adapter = candidate;
      }
      // This convention's span, but not a call to judge (e.g. an OpenClaw veto span).
      else rejected = candidate.rejects?.(span) === true;
    }
    const extra = candidate.scopeHint?.(span);
    if (extra) {
      hint = hint
        ? { runId: hint.runId ?? extra.runId, agentId: hint.agentId ?? extra.agentId, startsRun: hint.startsRun || extra.startsRun }
        : extra;
    }
  }
  const compactionRetry = span.attributes[ATTR_COMPACTION_RETRY] === true;
  // Most spans are none of these: answer them without allocating.
  if (!start && !hint && !compactionRetry) return NOTHING_TO_READ;
  return { adapter, start, hint, compactionRetry };
}

/** Adapters' `matchEnd`, for spans no adapter matched at start (the processor's `matchAtEnd`). */
export function matchSpanEnd(adapters: readonly ToolSpanAdapter[], span: SpanView): { adapter: ToolSpanAdapter; start: ToolCallStart } | undefined {
  for (const adapter of adapters) {
    const start = adapter.matchEnd?.(span);
    if (start) return { adapter, start };
  }
  return undefined;
}

/** Whether the arguments are known at start (then the call is judged before it runs). */
export function knownAtStart(start: ToolCallStart): boolean {
  return start.argsHash !== undefined || start.arguments !== undefined;
}

/**
 * The call's identity: a pre-computed args hash wins; otherwise the raw arguments are parsed
 * (JSON text, or the text itself) and hashed with the engine's `describeToolCall`.
 */
export function describeToolSpanCall(
  digester: Digester,
  toolName: string,
  argsHash: string | undefined,
  knownPoll: boolean | undefined,
  rawArguments: unknown,
): DescribedCall {
  if (argsHash !== undefined) return { identity: { toolName, argsHash, knownPoll: knownPoll ?? false } };
  const params = parseJsonAttribute(rawArguments);
  const described = describeToolCall(digester, toolName, params);
  return { identity: { toolName, argsHash: described.argsHash, knownPoll: knownPoll ?? described.knownPoll }, params };
}

/** Describes a call from the end reading, falling back to the start reading (late arguments). */
export function describeAtEnd(digester: Digester, start: ToolCallStart, end: ToolCallEnd): DescribedCall {
  return describeToolSpanCall(digester, start.toolName, end.argsHash ?? start.argsHash, end.knownPoll ?? start.knownPoll, end.arguments ?? start.arguments);
}

/** The outcome hash of an ending tool span: pre-computed hash, error, result, or nothing. */
export function hashToolSpanOutcome(digester: Digester, toolName: string, params: unknown, end: ToolCallEnd): OutcomeHash {
  if (end.resultHash !== undefined) return { resultHash: end.resultHash, unknownToolName: end.unknownToolName };
  if (end.isError) return hashToolOutcome(digester, { toolName, params, error: end.errorText ?? '', isError: true });
  if (!end.hasResult) return {};
  return hashToolOutcome(digester, { toolName, params, result: parseJsonAttribute(end.result) });
}
