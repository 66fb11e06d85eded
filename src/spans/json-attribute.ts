/**
 * Parses a content attribute: JSON text becomes its value; text that is not JSON stays the
 * string itself (instrumentations record plain-text results too); non-string values pass through.
 */
export function parseJsonAttribute(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const first = value.trimStart()[0];
  // Only text that can start a JSON value is worth a parse attempt (cheap reject of prose).
  if (first === undefined || !'{["-0123456789tfn'.includes(first)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
