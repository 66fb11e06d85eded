import { isPlainObject } from '../../util/is-record.js';

/**
 * True when a call is one of OpenClaw's known polls: `command_status` and `wait` with any
 * params, or `process` whose params are an object with `action` `"poll"` or `"log"`. Tool
 * names are compared exactly (callers pass the normalised name).
 */
/**
 * Whether calls of this tool can be known polls (`command_status`, `wait`, `process`), whatever
 * their params: for readers of the history, which keeps tool names but not params.
 */
export function mayBeKnownPoll(toolName: string): boolean {
  return toolName === 'command_status' || toolName === 'wait' || toolName === 'process';
}

export function isKnownPollCall(toolName: string, params: unknown): boolean {
  if (toolName === 'command_status' || toolName === 'wait') return true;
  if (toolName !== 'process' || !isPlainObject(params)) return false;
  return params.action === 'poll' || params.action === 'log';
}
