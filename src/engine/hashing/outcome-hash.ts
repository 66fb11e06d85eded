import type { Digester } from './digest.js';
import { canonicalString } from './canonical.js';
import { isPlainObject } from '../../util/is-record.js';
import type { OutcomeHash, SimilarityEvidence } from '../types.js';
import { execFailureIdentityHash, isTerminalExecFailure } from './exec-failure.js';
import { isSendLikeCall, stripVolatileDeliveryIds } from './send-like.js';
import { readTypedError } from './typed-error.js';
import { canonicalizeUntrustedContentIds } from './untrusted-content.js';
import { extractUnknownToolName } from './unknown-tool.js';
import { normalizeUpdatePlanParams } from './update-plan.js';
import { writeTargetHash } from './write-target.js';
import { textEvidence } from './result-sketch.js';

export type { OutcomeHash } from '../types.js';

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

/** How {@link hashToolOutcome} hashes. */
export interface HashOutcomeOptions {
  /**
   * Attach `similarity`, the near-duplicate evidence the opt-in `identical_call_budget` and
   * `similar_outcome` read (computed only when a history keeps it: about a second pass over the
   * text). `false` leaves it out. Default `true`.
   */
  readonly similarity?: boolean;
  /**
   * The digest of a `write`'s target (`writeTargetHash(digester, params)`), when the caller
   * has it already (the call's `mutationTargetHash`, from the same params): it is not computed
   * again. Default: computed here.
   */
  readonly targetHash?: string;
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
 * deniedReason:'tool-loop', reason}}`. Its outcome is a loop veto: no hash, recorded with
 * `outcomeKind: 'tool-loop-veto'` (it extends the streak once anchored).
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
  // Most results hold one text entry: its text is the join of one, with no list to build.
  let first: string | undefined;
  let parts: string[] | undefined;
  for (const entry of content as readonly unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { type, text } = entry as { type?: unknown; text?: unknown };
    if (typeof type !== 'string' || typeof text !== 'string') continue;
    if (first === undefined) first = text;
    else (parts ??= [first]).push(text);
  }
  if (parts !== undefined) return parts.join('\n').trim();
  return first === undefined ? '' : first.trim();
}

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

/** OpenClaw's `exec` projection (status, exit code, output; no durations); `undefined` means "fall through to the default". */
function execProjection(details: Record<string, unknown>, text: string): Record<string, unknown> | undefined {
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

/** The loop's own veto (OpenClaw's `details.status` `"blocked"` with `deniedReason` `"tool-loop"`). */
const VETO: OutcomeHash = Object.freeze({ outcomeKind: 'tool-loop-veto' });

/** A `write` whose result says the file did not change: one no-progress outcome (OpenClaw's `{status:'unchanged'}`). */
const WRITE_UNCHANGED = Object.freeze({ status: 'unchanged' });

/** OpenClaw's schema-validation failure text: the call never reached the tool. */
const VALIDATION_FAILED = /^Validation failed for tool\b/;

/** Digest of an outcome projection, with untrusted-content nonces canonicalised. */
function outcomeDigest(digester: Digester, value: unknown): string {
  return digester.digest(value, canonicalizeUntrustedContentIds);
}

/**
 * The shortest error message (trimmed) that counts as an explained failure: shorter ones
 * (`Permission denied`, `exit status 1`, none at all) are status codes, which tools return for
 * many different reasons, not evidence that the arguments made no difference.
 */
export const EXPLAINED_FAILURE_CHARS = 32;

/**
 * The near-duplicate evidence of a result: the sketch and shape of its text, or, for a
 * structure with no text, of its canonical form (so that results differing only in numbers match).
 */
function similarityEvidenceOf(text: string, structure: unknown): SimilarityEvidence {
  try {
    const evidence = textEvidence(text !== '' || structure === undefined ? text : canonicalString(structure));
    return evidence ? { resultSketch: evidence.sketch, resultShape: evidence.shape } : {};
  } catch {
    // A result that cannot be serialised (a throwing getter) is compared by its hash alone.
    return {};
  }
}

/**
 * Attaches the result's near-duplicate evidence, computed on first use: only the opt-in
 * near-duplicate detectors read it, and the history asks for it only when one is enabled.
 */
function withSimilarityEvidence(
  similarity: boolean,
  outcome: OutcomeHash,
  text: string,
  structure: unknown,
): OutcomeHash {
  if (!similarity) return outcome;
  let evidence: SimilarityEvidence | undefined;
  outcome.similarity = () => (evidence ??= similarityEvidenceOf(text, structure));
  return outcome;
}

/** Rules 3–8 for an OpenClaw-shaped result. */
function hashShapedResult(
  digester: Digester,
  toolName: string,
  params: unknown,
  result: Record<string, unknown>,
  similarity: boolean,
  targetHash: string | undefined,
): OutcomeHash {
  const details = isPlainObject(result.details) ? result.details : {};
  const text = contentText(result.content);
  if (details.status === 'blocked' && details.deniedReason === 'tool-loop') return VETO;
  if (toolName === 'exec') {
    const projected = execProjection(details, text);
    if (projected !== undefined) {
      const resultHash = outcomeDigest(digester, projected);
      const fields = {
        status: projected.status,
        exitCode: details.exitCode,
        timedOut: projected.timedOut === true,
        output: typeof projected.output === 'string' ? projected.output : '',
      };
      const output = typeof projected.output === 'string' ? projected.output : text;
      if (projected.output === undefined || !isTerminalExecFailure(fields))
        return withSimilarityEvidence(similarity, { resultHash }, output, undefined);
      return withSimilarityEvidence(
        similarity,
        {
          resultHash,
          outcomeKind: 'terminal-exec-failure',
          failureIdentityHash: execFailureIdentityHash(digester, fields),
        },
        output,
        undefined,
      );
    }
  }
  if (toolName === 'write' && details.changed === false)
    return withSimilarityEvidence(
      similarity,
      { resultHash: outcomeDigest(digester, WRITE_UNCHANGED), noProgress: true },
      text,
      undefined,
    );
  let projected: unknown;
  if (toolName === 'process') projected = processProjection(params, details, text);
  if (projected === undefined) {
    if (isSendLikeCall(toolName, params)) projected = stripVolatileDeliveryIds(details);
    else if (toolName === 'update_plan' && isPlainObject(params))
      projected = { details: normalizeUpdatePlanParams(params), text: '' };
    else projected = { details, text };
  }
  const hashed = withOutcomeFacts(
    digester,
    { resultHash: outcomeDigest(digester, projected) },
    toolName,
    params,
    text,
    targetHash,
  );
  return withSimilarityEvidence(similarity, hashed, text, isPlainObject(result.details) ? details : undefined);
}

/** Adds what the newer detectors read of a successful outcome: a typed-error stamp, a write's target. */
function withOutcomeFacts(
  digester: Digester,
  outcome: OutcomeHash,
  toolName: string,
  params: unknown,
  text: string,
  targetHash: string | undefined,
): OutcomeHash {
  const typedError = readTypedError(toolName, params, text);
  if (typedError !== undefined) outcome.typedError = typedError;
  if (toolName !== 'write') return outcome;
  const mutationTargetHash = writeTargetHash(digester, params, targetHash);
  if (mutationTargetHash !== undefined) {
    outcome.outcomeKind = 'write-mutation';
    outcome.mutationTargetHash = mutationTargetHash;
  }
  return outcome;
}

/**
 * Hashes a finished call's outcome with OpenClaw's `resultHash` rules, in order (first wins):
 * 1. an error → `"error:" + digestText(errorText)` (an `Error`'s message, or its name if
 *    the message is empty; a string as is; a number/boolean/bigint as text; anything
 *    else canonically serialised), plus `unknownToolName` when the text names one,
 *    `outcomeKind: 'argument-validation'` for a schema-validation failure
 *    (`Validation failed for tool …`), a `typedError` for a stamped `typed_code`, and
 *    `explainedFailure` when the message has at least {@link EXPLAINED_FAILURE_CHARS} characters;
 * 2. an `undefined` result → `{}` (nothing is recorded); a result that is not
 *    OpenClaw-shaped (see {@link isOpenClawShapedResult}) → the digest of the whole value;
 * 3–8. an OpenClaw-shaped result → `{outcomeKind: 'tool-loop-veto'}` (no hash) for the own
 *    loop veto (`details.status` `"blocked"` with `deniedReason` `"tool-loop"`), else the
 *    digest of its projection: `exec` by status (a terminal failure — finite nonzero exit,
 *    no timeout, real output — also gets `outcomeKind: 'terminal-exec-failure'` and a
 *    `failureIdentityHash` with volatile text masked), a `write` with `details.changed`
 *    `false` as one no-progress outcome, `process` poll/log, send-like calls by their details
 *    without volatile delivery ids (text ignored), `update_plan` by its plan shape, and
 *    otherwise `{details, text}`. A successful `write` with a path is a `write-mutation` of
 *    its target.
 *
 * Outcome digests replace the nonces of untrusted-content marker pairs with zeros, so the same
 * external content hashes the same each time it is fetched. Every hashed outcome but the veto
 * also carries `similarity`, its near-duplicate evidence computed on first use: the sketch and
 * shape of its text (error text, string result, OpenClaw's content text or `exec` output; for a
 * structure without text, its canonical form) — unless `options.similarity` is `false`. Tool names are compared exactly; callers pass the
 * normalised name.
 */
export function hashToolOutcome(
  digester: Digester,
  outcome: ToolOutcome,
  options: HashOutcomeOptions = {},
): OutcomeHash {
  const similarity = options.similarity !== false;
  const { toolName, params } = outcome;
  const failed = outcome.isError ?? outcome.error !== undefined;
  if (failed) {
    const text = errorText(outcome.error);
    const hashed: OutcomeHash = {
      resultHash: `error:${digester.digestText(canonicalizeUntrustedContentIds(text))}`,
    };
    const unknownToolName = extractUnknownToolName(text);
    if (unknownToolName !== undefined) hashed.unknownToolName = unknownToolName;
    if (VALIDATION_FAILED.test(text)) hashed.outcomeKind = 'argument-validation';
    const typedError = readTypedError(toolName, params, text);
    if (typedError !== undefined) hashed.typedError = typedError;
    if (text.trim().length >= EXPLAINED_FAILURE_CHARS) hashed.explainedFailure = true;
    return withSimilarityEvidence(similarity, hashed, text, undefined);
  }
  const { result } = outcome;
  if (result === undefined) return {};
  if (!isOpenClawShapedResult(result)) {
    const hashed: OutcomeHash = { resultHash: outcomeDigest(digester, result) };
    return typeof result === 'string'
      ? withSimilarityEvidence(
          similarity,
          withOutcomeFacts(digester, hashed, toolName, params, result, options.targetHash),
          result,
          undefined,
        )
      : withSimilarityEvidence(
          similarity,
          withOutcomeFacts(digester, hashed, toolName, params, '', options.targetHash),
          '',
          result,
        );
  }
  return hashShapedResult(
    digester,
    toolName,
    params,
    result as Record<string, unknown>,
    similarity,
    options.targetHash,
  );
}
