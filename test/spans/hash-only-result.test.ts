import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashOnlyResultCheck, SCAN_RESULTS_FROM } from '../../src/spans/hash-only-result.js';
import {
  AsciiPatternScanner,
  SLICE_CHARS,
  type AsciiPatternScannerOptions,
} from '../../src/util/ascii-pattern-scanner.js';

/** The rule as written: no `\u`, no loop veto word, no typed-error stamp, no `changed` for a write. */
function reference(toolName: string, text: string): boolean {
  return !(
    text.includes('\\u') ||
    text.includes('tool-loop') ||
    text.includes('typed_code') ||
    (toolName === 'write' && text.includes('changed'))
  );
}

describe('HashOnlyResultCheck', () => {
  it('answers as the rule on short and long results alike (property)', () => {
    const check = new HashOnlyResultCheck();
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'tool-loop',
        '-loop',
        'typed_code',
        '_code',
        'changed',
        'ged',
        '\\u',
        '\\n',
        '\\"',
        'é',
        '😀',
        'Ŝu',
        'ĭloop',
        'ħ_code',
      ),
    );
    const padding = fc.constantFrom(0, SCAN_RESULTS_FROM - 8, SCAN_RESULTS_FROM, SLICE_CHARS - 12, 2 * SLICE_CHARS);
    fc.assert(
      fc.property(
        fc.constantFrom('write', 'read', 'exec'),
        padding,
        fc.array(piece, { maxLength: 12 }),
        (tool, pad, pieces) => {
          const text = 'x'.repeat(pad) + pieces.join('');
          expect(check.holds(tool, text)).toBe(reference(tool, text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('keeps a long escaped JSON result without the words, and refuses one that spells one', () => {
    const check = new HashOnlyResultCheck();
    const text = JSON.stringify({
      content: [{ type: 'text', text: 'line "one"\n\tline two\n'.repeat(200) }],
      details: {},
    });
    expect(text.length).toBeGreaterThan(SCAN_RESULTS_FROM);
    expect(check.holds('write', text)).toBe(true);
    expect(check.holds('write', text.replace('two', 'tool\\u002dloop'))).toBe(false);
    expect(check.holds('write', `${text}{"changed":false}`)).toBe(false);
    expect(check.holds('read', `${text}{"changed":false}`)).toBe(true);
    expect(check.holds('read', `${text} typed_code=E_BAD`)).toBe(false);
    expect(check.holds('read', `${text} ged -loop _code`)).toBe(true);
  });

  it("makes one scanner for a write's long results and one, without `ged`, for every other tool's", () => {
    const made: [string[], AsciiPatternScannerOptions][] = [];
    const check = new HashOnlyResultCheck((patterns, options) => {
      made.push([[...patterns], options]);
      return new AsciiPatternScanner(patterns, options);
    });
    const long = `${'x'.repeat(SCAN_RESULTS_FROM)} changed `;
    for (const tool of ['read', 'exec', 'write', 'read', 'write'])
      expect(check.holds(tool, long)).toBe(tool !== 'write');
    // `ged` is filtered on its g and d: `ge` is common.
    expect(made).toEqual([
      [['\\u', '-loop', '_code'], {}],
      [['\\u', '-loop', '_code', 'ged'], { filterAt: { ged: 2 } }],
    ]);
  });

  it('answers with String#includes alone where no scanner can be made', () => {
    let tries = 0;
    const check = new HashOnlyResultCheck(() => {
      tries += 1;
      throw new Error('WebAssembly.CompileError: no SIMD here');
    });
    const long = 'x'.repeat(SCAN_RESULTS_FROM);
    expect(check.holds('read', long)).toBe(true);
    expect(check.holds('read', `${long}tool-loop`)).toBe(false);
    expect(check.holds('write', `${long}\\u0063hanged`)).toBe(false);
    expect(tries).toBe(1);
  });
});
