/**
 * Sets `key` in an insertion-ordered map, then drops its oldest entries until at most `max`
 * remain: the cap every long-lived map of per-run or per-span data gets.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}
