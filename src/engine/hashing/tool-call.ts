import type { ToolCallSignature } from '../types.js';
import { hashToolArgs } from './args-hash.js';
import type { Digester } from './digest.js';
import { isKnownPollCall } from './known-poll.js';

/** Builds the signature the detectors see from a tool name and its (parsed) parameters. */
export function describeToolCall(digester: Digester, toolName: string, params: unknown): ToolCallSignature {
  return { toolName, argsHash: hashToolArgs(digester, toolName, params), knownPoll: isKnownPollCall(toolName, params) };
}
