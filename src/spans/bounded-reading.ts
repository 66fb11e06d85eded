import { boundedText, MAX_KEPT_TEXT_LENGTH } from '../util/bounded-text.js';
import type { RunScopeHint, ToolCallEnd, ToolCallStart } from './adapters/adapter.js';

/*
 * Every text taken from a span is bounded as it is read (see `boundedText`), whatever adapter
 * read it: the built-in ones and a user's alike. Values this package writes itself (hashes,
 * names extracted from error texts) are within the bound, so bounding them changes nothing.
 */

/** Whether a text read from a span is over the bound (most never are: one comparison each). */
function over(text: string | undefined): boolean {
  return text !== undefined && text.length > MAX_KEPT_TEXT_LENGTH;
}

function bounded<T extends string | undefined>(text: T): T {
  return (text === undefined ? text : boundedText(text)) as T;
}

/**
 * An args hash `<tool name>:<digest>` keeps its tool name (the history stores such a hash as its
 * digest alone), with the digest bounded; any other is bounded whole.
 */
function boundedArgsHash(argsHash: string | undefined, toolName: string): string | undefined {
  if (argsHash === undefined || argsHash.length <= MAX_KEPT_TEXT_LENGTH) return argsHash;
  const n = toolName.length;
  if (argsHash.charCodeAt(n) === 0x3a && argsHash.startsWith(toolName) && argsHash.indexOf(':', n + 1) < 0)
    return `${toolName}:${boundedText(argsHash.slice(n + 1))}`;
  return boundedText(argsHash);
}

/** A typed-error identity `<family>:<CODE>` keeps its shape (the history reads the family back), each part bounded. */
function boundedTypedError(typedError: string | undefined): string | undefined {
  if (!over(typedError)) return typedError;
  const colon = typedError!.lastIndexOf(':');
  if (colon < 0) return boundedText(typedError!);
  return `${boundedText(typedError!.slice(0, colon))}:${boundedText(typedError!.slice(colon + 1))}`;
}

/** A tool call's start reading with its texts bounded (the reading itself when none is over). */
export function boundedStart(start: ToolCallStart): ToolCallStart {
  const facts = start.callFacts;
  if (
    !over(start.toolName) &&
    !over(start.toolCallId) &&
    !over(start.argsHash) &&
    !over(facts?.mutationTargetHash) &&
    !over(facts?.failureFamily)
  )
    return start;
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
  if (
    !over(end.argsHash) &&
    !over(end.resultHash) &&
    !over(end.unknownToolName) &&
    !over(facts?.typedError) &&
    !over(facts?.failureIdentityHash) &&
    !over(facts?.mutationTargetHash)
  )
    return end;
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
  if (!over(hint.runId) && !over(hint.agentId)) return hint;
  return { ...hint, runId: bounded(hint.runId), agentId: bounded(hint.agentId) };
}
