/**
 * `record[key]` when `record` has it as an own property, else `undefined`: what a polluted
 * `Object.prototype` holds is never read as a setting (an environment such as `process.env`
 * otherwise finds an inherited key).
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
