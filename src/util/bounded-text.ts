import { createHash } from 'node:crypto';

/**
 * Longest text kept from a span, in UTF-16 code units: tool names, tool call ids, run and agent
 * ids, the names and codes taken from error texts, pre-computed hashes. Real ones are far
 * shorter (MCP's tool names stop at 128); a longer one comes from a bug or an attacker, and
 * would otherwise be kept whole in every history record, warning key and loop event.
 */
export const MAX_KEPT_TEXT_LENGTH = 128;

/** Hex digits of the digest that keeps a cut text apart from every other. */
const DIGEST_DIGITS = 16;
/** Code units kept of a longer text, before `…` and its digest. */
const KEPT_HEAD = MAX_KEPT_TEXT_LENGTH - 1 - DIGEST_DIGITS;

/**
 * A text fit to be kept: itself when it is at most {@link MAX_KEPT_TEXT_LENGTH} long, else its
 * first code units, `…` and 16 hex digits of the SHA-256 of the whole text, {@link
 * MAX_KEPT_TEXT_LENGTH} in all. Two texts stay told apart however far they differ, one text is
 * always bounded alike (so bounding twice changes nothing), and the result is a string of its
 * own: a `slice` of a long text is, in V8, a view that would keep the whole text alive.
 */
export function boundedText(text: string): string {
  if (text.length <= MAX_KEPT_TEXT_LENGTH) return text;
  // A surrogate pair is kept whole or not at all.
  const cut = isHighSurrogate(text.charCodeAt(KEPT_HEAD - 1)) ? KEPT_HEAD - 1 : KEPT_HEAD;
  const digest = createHash('sha256').update(text, 'utf16le').digest('hex').slice(0, DIGEST_DIGITS);
  return ownCopy(`${text.slice(0, cut)}…${digest}`);
}

/**
 * A copy of a short text that shares nothing with the string it came from (a regex match or a
 * `slice` shares the text it was taken from). Linear in the text's length: meant for bounded texts.
 */
export function ownCopy(text: string): string {
  return text.split('').join('');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
