import type { ToolCallSignature } from '../types.js';
import { hashToolArgs } from './args-hash.js';
import type { Digester } from './digest.js';
import { isKnownPollCall } from './known-poll.js';
import { typedErrorFamily } from './typed-error.js';
import { writeTargetHash } from './write-target.js';

/**
 * Builds the signature the detectors see from a tool name and its (parsed) parameters: the
 * args hash, whether it is a known poll, for a `write` with a path the digest of its target, and
 * for the meta-tool `tool_call` its typed-error family.
 */
export function describeToolCall(digester: Digester, toolName: string, params: unknown): ToolCallSignature {
  const argsHash = hashToolArgs(digester, toolName, params);
  const knownPoll = isKnownPollCall(toolName, params);
  // One literal per shape: a spread copy plus a property defined on it builds a new hidden
  // class per call, and every detector's read of the signature then misses V8's caches.
  if (toolName === 'write') {
    const mutationTargetHash = writeTargetHash(digester, params);
    if (mutationTargetHash !== undefined) return { toolName, argsHash, knownPoll, mutationTargetHash };
  } else if (toolName === 'tool_call') {
    const failureFamily = typedErrorFamily(toolName, params);
    if (failureFamily !== undefined) return { toolName, argsHash, knownPoll, failureFamily };
  }
  return { toolName, argsHash, knownPoll };
}
