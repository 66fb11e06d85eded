import type { ResultFields } from '../types.js';
import type { ScopeLog } from './record-ring.js';

/**
 * The result fields of `toolName` learned as volatile in this scope: paths present in each of
 * the tool's newest `observations` structured results (its contiguous newest records; at least
 * 2) whose value changed from every one of those results to the next. Sorted. A field that
 * changes on every call (a timestamp, a request id) says nothing about progress, so it is masked
 * before results are compared.
 */
export function volatileFieldsOf(scope: ScopeLog, toolName: string, observations: number): readonly string[] {
  const needed = Math.max(2, observations);
  const seen: ResultFields[] = [];
  for (let s = scope.end - 1; s >= scope.first && seen.length < needed; s -= 1) {
    if (!scope.isToolName(s, toolName)) break;
    const fields = scope.details(s)?.resultFields;
    if (fields !== undefined) seen.push(fields);
    else if (scope.resultHash(s) !== undefined) break;
  }
  if (seen.length < needed) return [];
  const volatile: string[] = [];
  const newest = seen[0];
  for (let i = 0; i < newest.paths.length; i += 1) {
    const path = newest.paths[i];
    let previous = newest.values[i];
    let changedEveryTime = true;
    for (let k = 1; k < seen.length && changedEveryTime; k += 1) {
      const at = seen[k].paths.indexOf(path);
      if (at < 0 || seen[k].values[at] === previous) changedEveryTime = false;
      else previous = seen[k].values[at];
    }
    if (changedEveryTime) volatile.push(path);
  }
  return volatile.sort();
}
