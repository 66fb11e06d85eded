import { AsciiPatternScanner, type AsciiPatternScannerOptions } from '../util/ascii-pattern-scanner.js';

/**
 * Results of at least this many characters are searched in one vectorised pass; shorter ones
 * with `String#includes`, which costs less below ~400 characters of escaped JSON (copying the
 * text and calling into WebAssembly cost ~80 ns whatever its length).
 */
export const SCAN_RESULTS_FROM = 512;

/**
 * What may make a result's text matter beyond its hash: OpenClaw's loop veto (`tool-loop`), a
 * typed-error stamp (`typed_code`), for a `write` also `changed` (a write that changed nothing),
 * and a `\u` escape, which could spell any of them. Each word is searched for first by a part of it
 * (`-loop`, `_code`, `ged`), the word itself only when that part is there. The scanner's filter
 * compares a pattern's first character and one other: the second for `\u`, `-l` and `_c`, rare in
 * most texts; the third for `ged`, as `ge` is common in prose and code (the bench's results have
 * it in one 16-byte step in ten; `g?d`, in one in 250). Only a write's results are searched for
 * `ged`, by a scanner of their own. Bit `j` of a scanner's mask stands for `SCANNED_FOR_WRITE[j]`;
 * a hit is confirmed with `includes` (the scanner may report a pattern that a character above
 * U+00FF only resembles).
 */
const SCANNED = ['\\u', '-loop', '_code'];
const SCANNED_FOR_WRITE = [...SCANNED, 'ged'];
const WRITE_FILTER: AsciiPatternScannerOptions = { filterAt: { ged: 2 } };
const ESCAPE = 1;
const LOOP_TAIL = 2;
const CODE_TAIL = 4;
const CHANGED_TAIL = 8;

/**
 * Whether nothing but the hash of a successful result can depend on its text (none of the words
 * above in it, and no `\u` escape). Owns the scanners it searches long results with, each made on
 * the first result it serves; where none can be made (a runtime without WebAssembly SIMD), every
 * result is searched with `includes`.
 */
export class HashOnlyResultCheck {
  private scanner: AsciiPatternScanner | undefined = undefined;
  private writeScanner: AsciiPatternScanner | undefined = undefined;
  /**
   * Making a scanner failed once. For these fixed patterns that means a runtime without
   * WebAssembly SIMD, so neither scanner is tried again; one already made is still used.
   */
  private unavailable = false;

  /** @param makeScanner - Makes a scanner (tests pass one that fails). */
  constructor(
    private readonly makeScanner: (
      patterns: readonly string[],
      options: AsciiPatternScannerOptions,
    ) => AsciiPatternScanner = (patterns, options) => new AsciiPatternScanner(patterns, options),
  ) {}

  /** Whether the text of `toolName`'s successful result can matter only through its hash. */
  holds(toolName: string, result: string): boolean {
    const write = toolName === 'write';
    const scanner = result.length < SCAN_RESULTS_FROM ? null : this.scannerFor(write);
    const found = scanner === null ? tailsIn(result, write) : scanner.mayOccur(result);
    return !(
      ((found & ESCAPE) !== 0 && result.includes('\\u')) ||
      ((found & LOOP_TAIL) !== 0 && result.includes('tool-loop')) ||
      ((found & CODE_TAIL) !== 0 && result.includes('typed_code')) ||
      (write && (found & CHANGED_TAIL) !== 0 && result.includes('changed'))
    );
  }

  private scannerFor(write: boolean): AsciiPatternScanner | null {
    const made = write ? this.writeScanner : this.scanner;
    if (made !== undefined) return made;
    if (this.unavailable) return null;
    try {
      const scanner = write ? this.makeScanner(SCANNED_FOR_WRITE, WRITE_FILTER) : this.makeScanner(SCANNED, {});
      if (write) this.writeScanner = scanner;
      else this.scanner = scanner;
      return scanner;
    } catch {
      this.unavailable = true;
      return null;
    }
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
