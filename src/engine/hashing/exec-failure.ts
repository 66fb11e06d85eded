import type { Digester } from './digest.js';

/**
 * Spans of an `exec` failure that say when it failed, not why (OpenClaw's list): ISO datetimes,
 * clock times, attempt/retry counters, durations with a unit, and process ids. Every other
 * token is kept, so a new exit code, diagnostic word or number, or calendar date is a new failure.
 */
const VOLATILE_EXEC_FAILURE_PATTERNS: readonly RegExp[] = [
  /\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:z|[+-]\d{2}:\d{2})?/giu,
  /\d{1,2}:\d{2}:\d{2}(?:\.\d{1,6})?/gu,
  /\b(?:attempt|retry)\b[\s#:=]*\d+/giu,
  /\b\d+(?:\.\d+)?\s?(?:ns|us|ms|seconds?|minutes?|hours?|s)\b/giu,
  /\b(?:pid|ppid)\b[\s#:=]*\d+/giu,
];

/** `output` with its volatile spans replaced by `#`. */
export function maskVolatileExecText(output: string): string {
  let masked = output;
  for (const pattern of VOLATILE_EXEC_FAILURE_PATTERNS) masked = masked.replace(pattern, '#');
  return masked;
}

/** The fields of an `exec` result that decide whether it is a terminal failure. */
export interface ExecTerminalFields {
  readonly status: unknown;
  readonly exitCode: unknown;
  readonly timedOut: boolean;
  /** `details.aggregated` when non-empty, else the result text. */
  readonly output: string;
}

/**
 * OpenClaw's terminal `exec` failure: status `completed` or `failed`, a finite nonzero exit
 * code, no timeout, and real output (not empty, not only the `(Command exited with code N)`
 * footer that every nonzero exit gets). Timeouts, `null` and `Infinity` exit codes and
 * exit-code-only output never qualify.
 */
export function isTerminalExecFailure(fields: ExecTerminalFields): boolean {
  const { status, exitCode, output } = fields;
  return (
    (status === 'completed' || status === 'failed') &&
    typeof exitCode === 'number' &&
    Number.isFinite(exitCode) &&
    exitCode !== 0 &&
    !fields.timedOut &&
    output !== '' &&
    output !== `(Command exited with code ${exitCode})`
  );
}

/** The failure identity of a terminal `exec` failure: its status, exit code and masked output. */
export function execFailureIdentityHash(digester: Digester, fields: ExecTerminalFields): string {
  return digester.digest({
    status: fields.status,
    exitCode: fields.exitCode,
    timedOut: fields.timedOut,
    output: maskVolatileExecText(fields.output),
  });
}
