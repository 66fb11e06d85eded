import { AsciiPatternScanner } from '../util/ascii-pattern-scanner.js';

/**
 * Results of at least this many characters are searched in one vectorised pass; shorter ones
 * with `String#includes`, which costs less below ~400 characters of escaped JSON (copying the
 * text and calling into WebAssembly cost ~80 ns whatever its length).
 */
export const SCAN_RESULTS_FROM = 512;

/**
 * What may make a result's text matter beyond its hash: OpenClaw's loop veto (`tool-loop`), a
 * typed-error stamp (`typed_code`), a `write` that changed nothing (`changed`); and a `\u`
 * escape, which could spell any of them. Each word is searched for first by a part from its
 * rarest character (`-loop`, `_code`, `ged`), the word itself only when that part is there.
 * Bit `j` of the scanner's mask stands for `SCANNED[j]`; a hit is confirmed with `includes` (the
 * scanner may report a pattern that a character above U+00FF only resembles).
 */
const SCANNED = ['\\u', '-loop', '_code', 'ged'];
const ESCAPE = 1;
const LOOP_TAIL = 2;
const CODE_TAIL = 4;
const CHANGED_TAIL = 8;

/**
 * Whether nothing but the hash of a successful result can depend on its text (none of the words
 * above in it, and no `\u` escape). Owns the scanner it searches long results with, made on the
 * first one; where none can be made (a runtime without WebAssembly SIMD), every result is
 * searched with `includes`.
 */
export class HashOnlyResultCheck {
  /** `null`: none could be made. */
  private scanner: AsciiPatternScanner | null | undefined = undefined;

  /** @param makeScanner - Makes the scanner (tests pass one that fails). */
  constructor(private readonly makeScanner: () => AsciiPatternScanner = () => new AsciiPatternScanner(SCANNED)) {}

  /** Whether the text of `toolName`'s successful result can matter only through its hash. */
  holds(toolName: string, result: string): boolean {
    const write = toolName === 'write';
    const scanner =
      result.length < SCAN_RESULTS_FROM ? null : this.scanner === undefined ? this.scannerOnce() : this.scanner;
    const found = scanner === null ? tailsIn(result, write) : scanner.mayOccur(result);
    return !(
      ((found & ESCAPE) !== 0 && result.includes('\\u')) ||
      ((found & LOOP_TAIL) !== 0 && result.includes('tool-loop')) ||
      ((found & CODE_TAIL) !== 0 && result.includes('typed_code')) ||
      (write && (found & CHANGED_TAIL) !== 0 && result.includes('changed'))
    );
  }

  private scannerOnce(): AsciiPatternScanner | null {
    try {
      this.scanner = this.makeScanner();
    } catch {
      this.scanner = null;
    }
    return this.scanner;
  }
}

/**
 * The scanner's mask, found with `String#includes` (`ged` only for a `write`): on a short text
 * each search costs less than copying it into the scanner. An escape found here is searched for
 * again by {@link HashOnlyResultCheck.holds}, but then the result is hashed at once anyway.
 */
function tailsIn(text: string, write: boolean): number {
  return (
    (text.includes('\\u') ? ESCAPE : 0) |
    (text.includes('-loop') ? LOOP_TAIL : 0) |
    (text.includes('_code') ? CODE_TAIL : 0) |
    (write && text.includes('ged') ? CHANGED_TAIL : 0)
  );
}
