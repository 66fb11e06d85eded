/** True for a non-null, non-array object: a JSON object, a record of options. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True for a non-null, non-array object whose `Object.prototype.toString` tag is
 * `[object Object]` — what OpenClaw's outcome hashing treats as a plain object (object literals, `JSON.parse`
 * output, `Object.create(null)` records and ordinary class instances). Errors, typed
 * arrays, dates, maps and sets are not plain objects.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Object.prototype.toString.call(value) === '[object Object]';
}
