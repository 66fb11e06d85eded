import { boundedText } from '../util/bounded-text.js';

/**
 * A run id as every entry point reads it — span attributes through the adapters,
 * `processor.runSignal`, `traceRun` — so that one run has one id whichever way it is named: a
 * string, trimmed, or a finite number as its decimal text (the AI SDK copies
 * `experimental_telemetry.metadata.runId` as given, so `42` and `'42'` are one run), bounded
 * as every text taken from a span (`boundedText`). Anything else, or a blank string, is no run
 * id (`undefined`).
 */
export function runIdOf(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : boundedText(trimmed);
}
