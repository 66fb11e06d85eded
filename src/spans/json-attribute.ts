/**
 * Whether `text` can be JSON: its first character after JSON's whitespace can start a JSON value.
 * (Text led by any other whitespace cannot parse, so it is not worth the attempt either.)
 */
function mayBeJson(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) continue;
    // { [ " - 0-9 t f n
    return (
      code === 0x7b ||
      code === 0x5b ||
      code === 0x22 ||
      code === 0x2d ||
      (code >= 0x30 && code <= 0x39) ||
      code === 0x74 ||
      code === 0x66 ||
      code === 0x6e
    );
  }
  return false;
}

/**
 * Parses a content attribute: JSON text becomes its value; text that is not JSON stays the
 * string itself (instrumentations record plain-text results too); non-string values pass through.
 */
export function parseJsonAttribute(value: unknown): unknown {
  // Only text that can start a JSON value is worth a parse attempt (cheap reject of prose).
  if (typeof value !== 'string' || !mayBeJson(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
