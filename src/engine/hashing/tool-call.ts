import { hashToolArgs } from './args-hash.js';
import type { Digester } from './digest.js';
import { isKnownPollCall } from './known-poll.js';
import type { ToolCallSignature } from '../types.js';

/** Builds the signature the detectors see from a tool name and its (parsed) parameters. */
export function describeToolCall(digester: Digester, toolName: string, params: unknown, runId?: string): ToolCallSignature {
  const signature = { toolName, argsHash: hashToolArgs(digester, toolName, params), knownPoll: isKnownPollCall(toolName, params) };
  return runId === undefined ? signature : { ...signature, runId };
}
