import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHashOnlyResult } from '../../src/spans/hash-only-result.js';

/** The rule as written: no `\u`, no loop veto word, no typed-error stamp, no `changed` for a write. */
function reference(toolName: string, text: string): boolean {
  return !(
    text.includes('\\u') ||
    text.includes('tool-loop') ||
    text.includes('typed_code') ||
    (toolName === 'write' && text.includes('changed'))
  );
}

describe('isHashOnlyResult', () => {
  it('answers as the rule on any text (property)', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'tool-loop',
        '-loop',
        'tool',
        'typed_code',
        '_code',
        'typed',
        'changed',
        'ged',
        'chan',
        '\\u',
        '\\n',
        '\\"',
        'é',
        '😀',
        'Ŝu',
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('write', 'read', 'exec'),
        fc.constantFrom(0, 100, 20_000),
        fc.array(piece, { maxLength: 12 }),
        (tool, pad, pieces) => {
          const text = 'x'.repeat(pad) + pieces.join('');
          expect(isHashOnlyResult(tool, text)).toBe(reference(tool, text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('keeps a long escaped JSON result without the words, and refuses one that spells one', () => {
    const text = JSON.stringify({
      content: [{ type: 'text', text: 'line "one"\n\tline two\n'.repeat(200) }],
      details: {},
    });
    expect(isHashOnlyResult('write', text)).toBe(true);
    expect(isHashOnlyResult('write', text.replace('two', 'tool\\u002dloop'))).toBe(false);
    expect(isHashOnlyResult('write', `${text}{"changed":false}`)).toBe(false);
    expect(isHashOnlyResult('read', `${text}{"changed":false}`)).toBe(true);
    expect(isHashOnlyResult('read', `${text} typed_code=E_BAD`)).toBe(false);
    expect(isHashOnlyResult('read', `${text} ged -loop _code`)).toBe(true);
  });
});
