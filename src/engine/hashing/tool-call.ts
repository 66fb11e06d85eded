import type { ToolCallSignature } from '../types.js';
import { hashToolArgs } from './args-hash.js';
import type { Digester } from './digest.js';
import { isKnownPollCall } from './known-poll.js';
import { typedErrorFamily } from './typed-error.js';
import { writeTarget } from './write-target.js';

/**
 * Builds the signature the detectors see from a tool name and its (parsed) parameters: the
 * args hash, whether it is a known poll, for a `write` with a path the digest of its target, and
 * for the meta-tool `tool_call` its typed-error family.
 */
export function describeToolCall(digester: Digester, toolName: string, params: unknown): ToolCallSignature {
  const signature = {
    toolName,
    argsHash: hashToolArgs(digester, toolName, params),
    knownPoll: isKnownPollCall(toolName, params),
  };
  if (toolName === 'write') {
    const target = writeTarget(params);
    return target === undefined ? signature : { ...signature, mutationTargetHash: digester.digest(target) };
  }
  if (toolName === 'tool_call') {
    const failureFamily = typedErrorFamily(toolName, params);
    return failureFamily === undefined ? signature : { ...signature, failureFamily };
  }
  return signature;
}
