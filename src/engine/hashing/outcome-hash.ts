import type { Digester } from './digest.js';
import { canonicalString } from './canonical.js';
import { isPlainObject } from '../../util/is-record.js';
import { isSendLikeCall, stripVolatileDeliveryIds } from './send-like.js';
import { extractUnknownToolName } from './unknown-tool.js';
import { normalizeUpdatePlanParams } from './update-plan.js';

/** A finished tool call: its name, the params it ran with, and its result or error. */
export interface ToolOutcome {
  toolName: string;
  params?: unknown;
  result?: unknown;
  /** The thrown value (meaningful when {@link isError} is true, or when it is defined). */
  error?: unknown;
  /** True: `error` holds the thrown value, even `undefined`. Absent: `error !== undefined` means error. */
  isError?: boolean;
}

/** The outcome's identity for the history; an empty object means "record nothing". */
export interface OutcomeHash {
  resultHash?: string;
  unknownToolName?: string;
}

/** OpenClaw's result for a call vetoed by loop detection. */
export interface BlockedToolResult {
  content: Array<{ type: 'text'; text: string }>;
  details: { status: 'blocked'; deniedReason: 'tool-loop'; reason: string };
}

const EXEC_TERMINAL = new Set(['completed', 'failed']);
const EXEC_APPROVAL = new Set(['approval-pending', 'approval-unavailable']);

/**
 * Builds the result OpenClaw returns to the model instead of running a call that loop
 * detection blocked: `{content:[{type:'text', text: reason}], details:{status:'blocked',
 * deniedReason:'tool-loop', reason}}`. Its outcome is never hashed (OpenClaw: the loop's own veto is no outcome).
 */
export function blockedToolResult(reason: string): BlockedToolResult {
  return {
    content: [{ type: 'text', text: reason }],
    details: { status: 'blocked', deniedReason: 'tool-loop', reason },
  };
}

/**
 * True for an OpenClaw-shaped tool result: a plain object with a `content` array and/or
 * a plain-object `details`. Only these get OpenClaw's outcome projections; any other value is
 * hashed whole, or every framework's plain result would collapse to one hash.
 */
export function isOpenClawShapedResult(value: unknown): boolean {
  return isPlainObject(value) && (Array.isArray(value.content) || isPlainObject(value.details));
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const message: unknown = error.message;
    return typeof message === 'string' && message !== '' ? message : String(error.name);
  }
  switch (typeof error) {
    case 'string':
      return error;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(error);
    default:
      return canonicalString(error);
  }
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const entry of content as readonly unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { type, text } = entry as { type?: unknown; text?: unknown };
    if (typeof type === 'string' && typeof text === 'string') parts.push(text);
  }
  return parts.join('\n').trim();
}

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

/** OpenClaw's `exec` projection (status, exit code, output; no durations); `undefined` means "fall through to the default". */
function execProjection(details: Record<string, unknown>, text: string): unknown {
  const { status } = details;
  if (typeof status !== 'string') return undefined;
  if (status === 'running') return { status, tail: stringOr(details.tail, '') };
  if (EXEC_TERMINAL.has(status)) {
    // Unverified upstream whether "non-empty" trims; whitespace-only output counts as none.
    const aggregated = typeof details.aggregated === 'string' ? details.aggregated.trim() : '';
    return {
      status,
      exitCode: typeof details.exitCode === 'number' ? details.exitCode : null,
      timedOut: details.timedOut === true,
      output: aggregated !== '' ? aggregated : text,
    };
  }
  if (EXEC_APPROVAL.has(status)) {
    return {
      status,
      reason: stringOr(details.reason, null),
      host: stringOr(details.host, null),
      command: stringOr(details.command, ''),
      warningText: stringOr(details.warningText, ''),
    };
  }
  return undefined;
}

/** OpenClaw's `process` poll/log projection; `undefined` when the call is not a `process` poll or log. */
function processProjection(params: unknown, details: Record<string, unknown>, text: string): unknown {
  if (!isPlainObject(params)) return undefined;
  const { action } = params;
  const common = {
    action,
    status: details.status,
    exitCode: details.exitCode ?? null,
    exitSignal: details.exitSignal ?? null,
    text,
  };
  if (action === 'poll') return { ...common, aggregated: details.aggregated ?? null };
  if (action === 'log') {
    return {
      ...common,
      totalLines: details.totalLines ?? null,
      totalChars: details.totalChars ?? null,
      truncated: details.truncated ?? null,
    };
  }
  return undefined;
}

/** Rules 3–8 for an OpenClaw-shaped result; `undefined` for the own loop veto. */
function projectShapedResult(toolName: string, params: unknown, result: Record<string, unknown>): unknown {
  const details = isPlainObject(result.details) ? result.details : {};
  const text = contentText(result.content);
  if (details.status === 'blocked' && details.deniedReason === 'tool-loop') return undefined;
  if (toolName === 'exec') {
    const projected = execProjection(details, text);
    if (projected !== undefined) return projected;
  }
  if (toolName === 'process') {
    const projected = processProjection(params, details, text);
    if (projected !== undefined) return projected;
  }
  if (isSendLikeCall(toolName, params)) return stripVolatileDeliveryIds(details);
  if (toolName === 'update_plan' && isPlainObject(params)) {
    return { details: normalizeUpdatePlanParams(params), text: '' };
  }
  return { details, text };
}

/**
 * Hashes a finished call's outcome with OpenClaw's `resultHash` rules, in order (first wins):
 * 1. an error → `"error:" + digestText(errorText)` (an `Error`'s message, or its name if
 *    the message is empty; a string as is; a number/boolean/bigint as text; anything
 *    else canonically serialised), plus `unknownToolName` when the text names one;
 * 2. an `undefined` result → `{}` (nothing is recorded); a result that is not
 *    OpenClaw-shaped (see {@link isOpenClawShapedResult}) → the digest of the whole value;
 * 3–8. an OpenClaw-shaped result → `{}` for the own loop veto (`details.status`
 *    `"blocked"` with `deniedReason` `"tool-loop"`), else the digest of its projection:
 *    `exec` by status, `process` poll/log, send-like calls by their details without
 *    volatile delivery ids (text ignored), `update_plan` by its plan shape, and
 *    otherwise `{details, text}`.
 *
 * Tool names are compared exactly; callers pass the normalised name.
 */
export function hashToolOutcome(digester: Digester, outcome: ToolOutcome): OutcomeHash {
  const failed = outcome.isError ?? outcome.error !== undefined;
  if (failed) {
    const text = errorText(outcome.error);
    const resultHash = `error:${digester.digestText(text)}`;
    const unknownToolName = extractUnknownToolName(text);
    return unknownToolName === undefined ? { resultHash } : { resultHash, unknownToolName };
  }
  const { result } = outcome;
  if (result === undefined) return {};
  if (!isOpenClawShapedResult(result)) return { resultHash: digester.digest(result) };
  const projected = projectShapedResult(outcome.toolName, outcome.params, result as Record<string, unknown>);
  return projected === undefined ? {} : { resultHash: digester.digest(projected) };
}
