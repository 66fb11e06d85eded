const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Normalises a trace or span id to lowercase hex, or `undefined` when empty, all zero or
 * undecodable. OTLP JSON uses hex; the protobuf JSON mapping (and some Tempo responses) use
 * base64, told apart by length (`bytes` is 16 for trace ids, 8 for span ids). Jaeger ids are
 * hex, possibly without leading zeros (`hexOnly`).
 */
export function normalizeId(value: unknown, bytes: number, hexOnly = false): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  let hex: string | undefined;
  const base64Length = Math.ceil(bytes / 3) * 4;
  if (HEX.test(text) && (hexOnly || text.length === bytes * 2 || text.length !== base64Length))
    hex = text.toLowerCase();
  else if (!hexOnly && BASE64.test(text)) {
    const decoded = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (decoded.length > 0) hex = decoded.toString('hex');
  }
  if (hex === undefined || /^0+$/.test(hex)) return undefined;
  return hex.padStart(bytes * 2, '0');
}
