const MARKER = '<<<EXTERNAL_UNTRUSTED_CONTENT id=';
const CANONICAL_ID = '0000000000000000';
/** The shortest text holding a well-formed marker pair (empty body, no escapes): shorter ones never change. */
const SHORTEST_PAIR = `${MARKER}"${CANONICAL_ID}">>><<<END_EXTERNAL_UNTRUSTED_CONTENT id="${CANONICAL_ID}">>>`.length;
/**
 * A well-formed pair of OpenClaw's untrusted-content markers with the same 16-hex nonce:
 * group 1 the opening up to the id, 2 the backslashes before its quotes, 3 the id, 4 the body
 * and the closing marker up to its id, 5 the closing quote.
 */
const MARKER_PAIR =
  /(<<<EXTERNAL_UNTRUSTED_CONTENT id=(\\*)")([a-f0-9]{16})(\2">>>(?:(?!<<<(?:END_)?EXTERNAL_UNTRUSTED_CONTENT)[\s\S])*<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\2")\3(\2">>>)/g;
/** A quote and the backslashes before it. */
const ESCAPED_QUOTE = /(?<!\\)\\*"/g;

/**
 * Replaces the fresh nonce of every well-formed untrusted-content marker pair with
 * `0000000000000000`, so that the same external content wrapped twice hashes the same.
 * Markers inside repeatedly JSON-encoded text keep their pair when their quotes carry 2^n−1
 * backslashes and every quote between them is escaped consistently; malformed or empty ids,
 * and markers that cross a string boundary, are kept as they are. Returns `text` itself when
 * it holds no marker.
 */
export function canonicalizeUntrustedContentIds(text: string): string {
  // Most strings of a structured result (keys, ids, titles) are shorter than a pair: the length
  // test spares them the search.
  if (text.length < SHORTEST_PAIR || !text.includes(MARKER)) return text;
  return text.replace(
    MARKER_PAIR,
    (match, start: string, escapes: string, _id: string, middle: string, end: string) => {
      const width = escapes.length + 1;
      if ((escapes.length & width) !== 0) return match;
      for (const quote of middle.matchAll(ESCAPED_QUOTE)) if (quote[0].length % width !== 0) return match;
      return start + CANONICAL_ID + middle + CANONICAL_ID + end;
    },
  );
}
