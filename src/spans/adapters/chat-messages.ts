import type { SpanView } from '../span-view.js';
import type { ToolResultMessage } from './adapter.js';
import { stringValue } from './attribute-values.js';

/**
 * Most messages of one flattened list read from a span (`<prefix>.<i>.…`): past it the rest are
 * not read. Far beyond what a model is sent (a span attribute limit would drop them first).
 */
const MAX_FLATTENED_MESSAGES = 100_000;

/**
 * How many entries a flattened list has: `<prefix>.0.<key>`, `<prefix>.1.<key>`, … up to the first
 * index without `key` (instrumentations number them from 0, without gaps).
 */
export function flattenedCount(span: SpanView, prefix: string, key: string): number {
  let count = 0;
  while (count < MAX_FLATTENED_MESSAGES && span.attributes[`${prefix}.${count}.${key}`] !== undefined) count += 1;
  return count;
}

/** A role as instrumentations write it (`assistant`, `tool`, …), lower-cased; `undefined` when absent. */
export function roleOf(value: unknown): string | undefined {
  return stringValue(value)?.toLowerCase();
}

/**
 * The tool results sent with a model call: those of the messages after its last assistant
 * message (the results of the calls the previous model call asked for), in order. `roleAt(i)`
 * and `resultsAt(i)` read message `i` of `count`; `resultsAt` is asked only for tool messages.
 */
export function latestToolResults(
  count: number,
  roleAt: (index: number) => string | undefined,
  resultsAt: (index: number) => readonly ToolResultMessage[],
): ToolResultMessage[] {
  let first = count;
  while (first > 0 && roleAt(first - 1) !== 'assistant') first -= 1;
  const results: ToolResultMessage[] = [];
  for (let i = first; i < count; i += 1) if (roleAt(i) === 'tool') results.push(...resultsAt(i));
  return results;
}
