import { boundedText, MAX_KEPT_TEXT_LENGTH } from '../util/bounded-text.js';
import type { ChatToolCalls, RunScopeHint, ToolCallEnd, ToolCallStart, ToolResultMessage } from './adapters/adapter.js';

/*
 * Every text taken from a span is bounded as it is read (see `boundedText`), whatever adapter
 * read it: the built-in ones and a user's alike. Values this package writes itself (hashes,
 * names extracted from error texts) are within the bound, so bounding them changes nothing.
 */

/** Whether a text read from a span is within the bound (`undefined`: no text). */
function fits(text: string | undefined): boolean {
  return text === undefined || text.length <= MAX_KEPT_TEXT_LENGTH;
}

function bounded<T extends string | undefined>(text: T): T {
  return (text === undefined ? text : boundedText(text)) as T;
}

/**
 * An args hash `<tool name>:<digest>` keeps its tool name (the history stores such a hash as its
 * digest alone), with the digest bounded; any other is bounded whole.
 */
function boundedArgsHash(argsHash: string | undefined, toolName: string): string | undefined {
  if (fits(argsHash)) return argsHash;
  const hash = argsHash!;
  const n = toolName.length;
  if (hash.charCodeAt(n) === 0x3a && hash.startsWith(toolName) && hash.indexOf(':', n + 1) < 0)
    return `${toolName}:${boundedText(hash.slice(n + 1))}`;
  return boundedText(hash);
}

/** A typed-error identity `<family>:<CODE>` keeps its shape (the history reads the family back), each part bounded. */
function boundedTypedError(typedError: string | undefined): string | undefined {
  if (fits(typedError)) return typedError;
  const text = typedError!;
  const colon = text.lastIndexOf(':');
  if (colon < 0) return boundedText(text);
  return `${boundedText(text.slice(0, colon))}:${boundedText(text.slice(colon + 1))}`;
}

/*
 * Each reading is checked in a few comparisons, small enough to inline where it is read; the
 * copy with bounded texts (almost never needed) is built apart.
 */

/** A tool call's start reading with its texts bounded (the reading itself when they all fit). */
export function boundedStart(start: ToolCallStart): ToolCallStart {
  const facts = start.callFacts;
  return fits(start.toolName) &&
    fits(start.toolCallId) &&
    fits(start.argsHash) &&
    (facts === undefined || (fits(facts.mutationTargetHash) && fits(facts.failureFamily)))
    ? start
    : boundStart(start);
}

function boundStart(start: ToolCallStart): ToolCallStart {
  const facts = start.callFacts;
  const toolName = boundedText(start.toolName);
  return {
    ...start,
    toolName,
    toolCallId: bounded(start.toolCallId),
    argsHash: boundedArgsHash(start.argsHash, toolName),
    callFacts: facts && {
      ...facts,
      mutationTargetHash: bounded(facts.mutationTargetHash),
      failureFamily: bounded(facts.failureFamily),
    },
  };
}

/** A tool call's end reading with its texts bounded; `toolName` is the call's (bounded) tool name. */
export function boundedEnd(end: ToolCallEnd, toolName: string): ToolCallEnd {
  const facts = end.outcomeFacts;
  return fits(end.argsHash) &&
    fits(end.resultHash) &&
    fits(end.unknownToolName) &&
    (facts === undefined ||
      (fits(facts.typedError) && fits(facts.failureIdentityHash) && fits(facts.mutationTargetHash)))
    ? end
    : boundEnd(end, toolName);
}

function boundEnd(end: ToolCallEnd, toolName: string): ToolCallEnd {
  const facts = end.outcomeFacts;
  return {
    ...end,
    argsHash: boundedArgsHash(end.argsHash, toolName),
    resultHash: bounded(end.resultHash),
    unknownToolName: bounded(end.unknownToolName),
    outcomeFacts: facts && {
      ...facts,
      typedError: boundedTypedError(facts.typedError),
      failureIdentityHash: bounded(facts.failureIdentityHash),
      mutationTargetHash: bounded(facts.mutationTargetHash),
    },
  };
}

/** Run-scope hints with the run and agent ids bounded. */
export function boundedHint(hint: RunScopeHint): RunScopeHint {
  return fits(hint.runId) && fits(hint.agentId)
    ? hint
    : { ...hint, runId: bounded(hint.runId), agentId: bounded(hint.agentId) };
}

/**
 * What a model-call span says about tool calls, with the requested calls' tool names and ids and
 * the results' call ids bounded as a tool span's are (a tool span claims a requested call by them).
 */
export function boundedChat(chat: ChatToolCalls): ChatToolCalls {
  const { requested, results } = chat;
  return requested.every((call) => fits(call.toolName) && fits(call.toolCallId)) &&
    results.every((result) => fits(result.toolCallId))
    ? chat
    : {
        ...chat,
        requested: requested.map((call) => ({
          ...call,
          toolName: boundedText(call.toolName),
          toolCallId: bounded(call.toolCallId),
        })),
        results: results.map((result): ToolResultMessage => ({ ...result, toolCallId: bounded(result.toolCallId) })),
      };
}
