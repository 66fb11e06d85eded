/** The result sketch: equal texts agree, numbers do not count as content, different texts differ. */
import { describe, expect, it } from 'vitest';
import {
  SKETCH_BITS,
  SKETCH_MAX_CHARS,
  sketchDistance,
  sketchesSimilar,
  sketchText,
  textEvidence,
} from '../../../src/engine/hashing/result-sketch.js';

const FEEDBACK = 'The search API calls seem not valid. Please check the arguments you give carefully and try again.';

describe('sketchText', () => {
  it('is a 52-bit integer, equal for equal texts', () => {
    const sketch = sketchText(FEEDBACK)!;
    expect(Number.isSafeInteger(sketch)).toBe(true);
    expect(sketch).toBeGreaterThanOrEqual(0);
    expect(sketch).toBeLessThan(2 ** SKETCH_BITS);
    expect(sketchText(`${FEEDBACK}`)).toBe(sketch);
  });

  it('reads every run of digits as the same token (clock reads, counters, line numbers)', () => {
    expect(sketchText('14\n')).toBe(sketchText('15\n'));
    expect(sketchText('Found 5 matches in line 120')).toBe(sketchText('Found 7 matches in line 9'));
  });

  it('ignores whitespace layout but not words', () => {
    expect(sketchText('a  b\n\tc')).toBe(sketchText('a b c'));
    expect(sketchText('Session closed.')).not.toBe(sketchText('Goodbye!'));
  });

  it('keeps texts that share nothing far apart', () => {
    const words = (seed: string) =>
      Array.from({ length: 40 }, (_, i) => `${seed}${String.fromCharCode(97 + (i % 26))}${i > 25 ? 'x' : ''}`).join(
        ' ',
      );
    const distance = sketchDistance(sketchText(words('alpha'))!, sketchText(words('omega'))!);
    expect(distance).toBeGreaterThan(5);
  });

  it('gives nothing for an empty text or one beyond the size bound', () => {
    expect(sketchText('')).toBeUndefined();
    expect(sketchText('   \n ')).toBeUndefined();
    expect(sketchText('x'.repeat(SKETCH_MAX_CHARS + 1))).toBeUndefined();
    expect(sketchText('x'.repeat(SKETCH_MAX_CHARS))).toBeDefined();
  });
});

describe('sketchesSimilar', () => {
  it('allows floor(52 × (1 − p) / 2) differing bits, counted over both halves', () => {
    const high = 2 ** 26;
    expect(sketchDistance(high + 1, 0)).toBe(2);
    expect(sketchesSimilar(0, high + 1, 90)).toBe(true);
    expect(sketchesSimilar(0, high + 0b11, 90)).toBe(false);
    expect(sketchesSimilar(0, 0b1, 95)).toBe(true);
    expect(sketchesSimilar(0, 0b11, 95)).toBe(false);
    expect(sketchesSimilar(0, 0b1, 100)).toBe(false);
    expect(sketchesSimilar(5, 5, 100)).toBe(true);
  });
});

describe('textEvidence', () => {
  it('has one shape for texts that differ only in numbers and whitespace, another for other words', () => {
    expect(textEvidence('at line 12:  unexpected indent')?.shape).toBe(
      textEvidence('at line 340: unexpected\nindent')?.shape,
    );
    expect(textEvidence('unexpected indent')?.shape).not.toBe(textEvidence('expected an indented block')?.shape);
    expect(textEvidence('x')?.sketch).toBe(sketchText('x'));
  });
});
