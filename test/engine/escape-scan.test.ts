import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEscapeScanner } from '../../src/engine/escape-scan.js';

const scanner = createEscapeScanner(200_000);
const encoder = new TextEncoder();

function scan(text: string): boolean {
  if (scanner === undefined) throw new Error('no scanner');
  const { written } = encoder.encodeInto(text, scanner.scratch);
  return scanner.hasEscapes(written);
}

describe('createEscapeScanner', () => {
  it('instantiates on Node with a scratch space of the requested capacity', () => {
    expect(scanner).toBeDefined();
    expect(scanner!.scratch.byteLength).toBeGreaterThanOrEqual(200_000);
  });

  it('flags exactly the bytes JSON quoting escapes, at every vector and tail position', () => {
    expect(scan('')).toBe(false);
    expect(scan(' ~\u007f\u0080é漢😀'.repeat(50))).toBe(false);
    for (let code = 0; code < 128; code++) {
      for (const at of [0, 5, 15, 16, 31, 47, 63, 64, 70, 100]) {
        const text = 'x'.repeat(at) + String.fromCharCode(code) + 'y'.repeat(100 - at);
        expect(scan(text)).toBe(code < 0x20 || code === 0x22 || code === 0x5c);
      }
    }
  });

  it('agrees with JSON.stringify on random strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => scan(text) === (JSON.stringify(text).length !== text.length + 2)),
      { numRuns: 1000 },
    );
  });
});
