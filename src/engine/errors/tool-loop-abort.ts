import { CompactionLoopPersistedError, COMPACTION_LOOP_PERSISTED_CODE } from './compaction-loop-persisted-error.js';
import { ToolLoopBlockedError, TOOL_LOOP_BLOCKED_CODE } from './tool-loop-blocked-error.js';

/** How many `cause` / `reason` links are followed from the error given. */
const MAX_DEPTH = 8;

/**
 * What every message of an abort error starts with: the error carries the critical verdict's
 * text, and each of OpenClaw's critical texts (and ours beyond OpenClaw) starts so.
 */
const CRITICAL_PREFIX = 'CRITICAL: ';

/** What each such text then says: the run was blocked (detectors, budgets) or aborted (post-compaction guard). */
const CRITICAL_ENDINGS = [
  'Session execution blocked',
  'Aborting to prevent runaway resource use',
  'Stop retrying that missing tool',
] as const;

/**
 * Whether a text is the message of a tool-loop abort: one of the critical verdict texts the
 * abort errors carry (`CRITICAL: …`, saying the session was blocked or aborted).
 */
function isToolLoopAbortMessage(text: string): boolean {
  return text.startsWith(CRITICAL_PREFIX) && CRITICAL_ENDINGS.some((ending) => text.includes(ending));
}

/** A property of a value that may throw on reading (a getter, a proxy): `undefined` then. */
function read(value: object, key: 'cause' | 'reason' | 'code' | 'message'): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** `instanceof` one of our errors; `false` for a proxy whose prototype cannot be read. */
function isOurError(value: object): boolean {
  try {
    return value instanceof ToolLoopBlockedError || value instanceof CompactionLoopPersistedError;
  } catch {
    return false;
  }
}

/** One value of the chain, not its links. */
function isAbortItself(value: unknown): boolean {
  if (typeof value === 'string') return isToolLoopAbortMessage(value);
  if (typeof value !== 'object' || value === null) return false;
  if (isOurError(value)) return true;
  // Another copy of this package (its CommonJS and ES builds in one process) has other classes.
  const code = read(value, 'code');
  if (code === TOOL_LOOP_BLOCKED_CODE || code === COMPACTION_LOOP_PERSISTED_CODE) return true;
  const message = read(value, 'message');
  return typeof message === 'string' && isToolLoopAbortMessage(message);
}

/**
 * Whether an error is (or wraps) a run aborted by tool-loop-guard: a `ToolLoopBlockedError` or
 * `CompactionLoopPersistedError` (of any copy of this package, by its `code`), or an error whose
 * `cause` or `reason` is one, at any depth up to 8 links. Where a framework keeps only the abort
 * reason's message (VoltAgent's `AbortError`, whose `reason` is that message as a string; the
 * AI SDK's `streamText` abort part), the message is recognised: the critical verdict's text,
 * `CRITICAL: …` saying the session was blocked or aborted — as a string given here, or an
 * error's `message`. Never throws.
 *
 * @example
 * try { await agent.generateText(prompt, { abortSignal: processor.runSignal(runId) }); }
 * catch (error) { if (isToolLoopAbort(error)) return 'stopped: the agent was looping'; throw error; }
 */
export function isToolLoopAbort(error: unknown): boolean {
  const seen = new Set<unknown>();
  let level: unknown[] = [error];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth += 1) {
    const next: unknown[] = [];
    for (const value of level) {
      if (isAbortItself(value)) return true;
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      for (const key of ['cause', 'reason'] as const) {
        const link = read(value, key);
        if (link !== undefined && link !== null) next.push(link);
      }
    }
    level = next;
  }
  return false;
}
