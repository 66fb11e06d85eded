import type { OutcomeKind } from '../../engine/types.js';
import {
  ATTR_EXCEPTION_MESSAGE,
  ATTR_TOOL_LOOP_ARGS_HASH,
  ATTR_TOOL_LOOP_FAILURE_FAMILY,
  ATTR_TOOL_LOOP_FAILURE_IDENTITY_HASH,
  ATTR_TOOL_LOOP_MUTATION_TARGET_HASH,
  ATTR_TOOL_LOOP_NO_PROGRESS,
  ATTR_TOOL_LOOP_OUTCOME_KIND,
  ATTR_TOOL_LOOP_POLL,
  ATTR_TOOL_LOOP_RESULT_HASH,
  ATTR_TOOL_LOOP_TYPED_ERROR,
  ATTR_TOOL_LOOP_UNKNOWN_TOOL,
  EVENT_EXCEPTION,
} from '../../semconv.js';
import { spanIdOf, STATUS_CODE_ERROR, type SpanView } from '../span-view.js';
import type { ToolCallEnd, ToolCallStart } from './adapter.js';

/**
 * A non-blank string attribute value, trimmed; `undefined` otherwise. Callers read the value
 * themselves (`stringValue(span.attributes[KEY])`): each such read is its own lookup site that
 * sees one key, which V8 resolves like a named property, where one shared `attributes[key]`
 * site seeing every adapter's keys would take V8's slow generic lookup on each span.
 */
export function stringValue(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The first of two attribute values that is present (not `undefined`), as a span's first attribute of two keys. */
export function firstPresent(first: unknown, second: unknown): unknown {
  return first !== undefined ? first : second;
}

/** `tool_loop.poll` when it is a boolean. */
function pollAttribute(span: SpanView): boolean | undefined {
  const poll = span.attributes[ATTR_TOOL_LOOP_POLL];
  return typeof poll === 'boolean' ? poll : undefined;
}

/**
 * A tool call recognised at start from a convention's call-id and arguments attribute values,
 * plus our own `tool_loop.args_hash` / `tool_loop.poll`.
 */
export function toolCallStartOf(span: SpanView, toolName: string, callId: unknown, args: unknown): ToolCallStart {
  const argsHash = stringValue(span.attributes[ATTR_TOOL_LOOP_ARGS_HASH]);
  return {
    toolName,
    toolCallId: stringValue(callId),
    argsHash,
    knownPoll: pollAttribute(span),
    arguments: args,
    callFacts: argsHash === undefined ? undefined : readCallFacts(span),
  };
}

/** The error text of a failed span: status message, else the last `exception` event's message. */
function spanErrorText(span: SpanView): string | undefined {
  if (span.status?.code !== STATUS_CODE_ERROR) return undefined;
  if (span.status.message) return span.status.message;
  const events = span.events ?? [];
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    const message = event.name === EVENT_EXCEPTION ? event.attributes?.[ATTR_EXCEPTION_MESSAGE] : undefined;
    if (typeof message === 'string' && message !== '') return message;
  }
  return '';
}

/**
 * The end-of-span reading shared by every convention: our own hash attributes win, then the
 * error status, then the raw result (`result`, the convention's result attribute value;
 * `undefined`: none). A span that carries no arguments at all (`args` undefined) gets an
 * {@link uncapturedArgsHash}.
 */
export function readToolCallEnd(span: SpanView, args: unknown, result: unknown): ToolCallEnd {
  const errorText = spanErrorText(span);
  const argsHash = stringValue(span.attributes[ATTR_TOOL_LOOP_ARGS_HASH]);
  const resultHash = stringValue(span.attributes[ATTR_TOOL_LOOP_RESULT_HASH]);
  const outcomeKind = outcomeKindAttribute(span);
  return {
    argsHash: argsHash === undefined && args === undefined ? uncapturedArgsHash(span) : argsHash,
    knownPoll: pollAttribute(span),
    arguments: args,
    resultHash,
    unknownToolName: stringValue(span.attributes[ATTR_TOOL_LOOP_UNKNOWN_TOOL])?.toLowerCase(),
    outcomeFacts:
      resultHash === undefined && outcomeKind === undefined ? undefined : readOutcomeFacts(span, outcomeKind),
    result,
    hasResult: result !== undefined,
    errorText,
    isError: errorText !== undefined,
  };
}

/**
 * An args hash that matches no other call, for a tool span whose arguments were never captured
 * (content capture off). Without it every call of a tool would hash alike and healthy agents
 * would draw `generic_repeat` warnings; with it the call still counts in the history window
 * and error outcomes (`unknown_tool_repeat`) are still seen.
 */
function uncapturedArgsHash(span: SpanView): string {
  return `uncaptured:${spanIdOf(span) ?? crypto.randomUUID()}`;
}

const OUTCOME_KINDS: ReadonlySet<string> = new Set<OutcomeKind>([
  'tool-loop-veto',
  'terminal-exec-failure',
  'argument-validation',
  'write-mutation',
]);

/** `tool_loop.outcome_kind` when it names a known kind. */
function outcomeKindAttribute(span: SpanView): OutcomeKind | undefined {
  const kind = stringValue(span.attributes[ATTR_TOOL_LOOP_OUTCOME_KIND]);
  return kind !== undefined && OUTCOME_KINDS.has(kind) ? (kind as OutcomeKind) : undefined;
}

/** The facts written with a pre-computed outcome hash (see `ATTR_TOOL_LOOP_OUTCOME_KIND`). */
function readOutcomeFacts(
  span: SpanView,
  outcomeKind: OutcomeKind | undefined,
): NonNullable<ToolCallEnd['outcomeFacts']> {
  const facts: {
    -readonly [K in keyof NonNullable<ToolCallEnd['outcomeFacts']>]: NonNullable<ToolCallEnd['outcomeFacts']>[K];
  } = {};
  if (outcomeKind !== undefined) facts.outcomeKind = outcomeKind;
  const failureIdentityHash = stringValue(span.attributes[ATTR_TOOL_LOOP_FAILURE_IDENTITY_HASH]);
  if (failureIdentityHash !== undefined) facts.failureIdentityHash = failureIdentityHash;
  const typedError = stringValue(span.attributes[ATTR_TOOL_LOOP_TYPED_ERROR]);
  if (typedError !== undefined) facts.typedError = typedError;
  const mutationTargetHash = stringValue(span.attributes[ATTR_TOOL_LOOP_MUTATION_TARGET_HASH]);
  if (mutationTargetHash !== undefined) facts.mutationTargetHash = mutationTargetHash;
  if (span.attributes[ATTR_TOOL_LOOP_NO_PROGRESS] === true) facts.noProgress = true;
  return facts;
}

/** The facts written with a pre-computed args hash (see `ATTR_TOOL_LOOP_FAILURE_FAMILY`); `undefined` when there are none. */
function readCallFacts(span: SpanView): ToolCallStart['callFacts'] {
  const mutationTargetHash = stringValue(span.attributes[ATTR_TOOL_LOOP_MUTATION_TARGET_HASH]);
  const failureFamily = stringValue(span.attributes[ATTR_TOOL_LOOP_FAILURE_FAMILY]);
  if (mutationTargetHash === undefined && failureFamily === undefined) return undefined;
  return failureFamily === undefined ? { mutationTargetHash } : { mutationTargetHash, failureFamily };
}
