import type { Digester } from '../../engine/digest.js';
import { hashToolOutcome, type OutcomeHash } from '../../engine/outcome-hash.js';
import { describeToolCall } from '../../engine/tool-call.js';
import type { RunScopeHint, ToolCallEnd, ToolCallStart, ToolSpanAdapter } from '../../otel/adapters/adapter.js';
import { parseJsonAttribute } from '../../otel/json-attribute.js';
import type { SpanView } from '../../otel/span-view.js';
import { ATTR_COMPACTION_RETRY } from '../../semconv.js';

/**
 * Framework-free readings of a span, factored out of the span processor's `onStart` /
 * `onEnding` so that live spans and spans decoded from files are judged the same way.
 * (The processor still has its own copy of these steps; see docs/analyze.md, "One engine".)
 */

/** What the adapters say about a starting span. */
export interface SpanStartReading {
  /** The first adapter that recognised a tool span, and its reading. */
  readonly adapter?: ToolSpanAdapter;
  readonly start?: ToolCallStart;
  /** Run-scope hints merged over every adapter (first non-empty value of each field wins). */
  readonly hint?: RunScopeHint;
  /** An adapter rejected the span at start: its convention's span, but not a call to judge. */
  readonly rejected?: boolean;
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

/** Runs the adapters over a starting span, exactly as the processor's `onStart` does. */
export function readSpanStart(adapters: readonly ToolSpanAdapter[], span: SpanView): SpanStartReading {
  let start: ToolCallStart | undefined;
  let adapter: ToolSpanAdapter | undefined;
  let hint: RunScopeHint | undefined;
  let rejected = false;
  for (const candidate of adapters) {
    if (!start && !rejected) {
      const match = candidate.matchStart(span) as ToolCallStart | null | undefined;
      if (match) [start, adapter] = [match, candidate];
      // This convention's span, but not a call to judge (e.g. an OpenClaw veto span).
      else rejected = match === null || candidate.rejects?.(span) === true;
    }
    const extra = candidate.scopeHint?.(span);
    if (extra) {
      hint = hint
        ? { runId: hint.runId ?? extra.runId, agentId: hint.agentId ?? extra.agentId, startsRun: hint.startsRun || extra.startsRun }
        : extra;
    }
  }
  return { adapter, start, hint, rejected, compactionRetry: span.attributes[ATTR_COMPACTION_RETRY] === true };
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
