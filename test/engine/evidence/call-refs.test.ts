/** `CallRefs`: span references of a run's newest calls, packed; `PackedRing` underneath. */
import { describe, expect, it } from 'vitest';
import { CallRefs, signatureDigest } from '../../../src/engine/evidence/call-refs.js';
import { PackedRing } from '../../../src/engine/evidence/packed-ring.js';

const span = (n: number) => n.toString(16).padStart(16, '0');

describe('CallRefs', () => {
  it('returns the members of given signatures oldest first, and only the newest maxCalls calls', () => {
    const refs = new CallRefs(5);
    for (let i = 1; i <= 8; i += 1) refs.add(i % 2 === 0 ? 'read:a' : 'list:b', { traceId: 't1', spanId: span(i) });
    expect(refs.of(['read:a']).map((r) => r.spanId)).toEqual([span(4), span(6), span(8)]);
    expect(refs.of(['read:a', 'list:b']).map((r) => r.spanId)).toEqual([4, 5, 6, 7, 8].map(span));
    expect(refs.of(['exec:c'])).toEqual([]);
  });

  it('round-trips full 64-bit span ids and keeps each call trace', () => {
    const refs = new CallRefs(30);
    refs.add('read:a', { traceId: 'trace-1', spanId: 'FFFFFFFF00000001' });
    refs.add('read:a', { traceId: 'trace-2', spanId: '8000000000000000' });
    expect(refs.of(['read:a'])).toEqual([
      { traceId: 'trace-1', spanId: 'ffffffff00000001' },
      { traceId: 'trace-2', spanId: '8000000000000000' },
    ]);
  });

  it('ignores span ids that are not 16 hex digits', () => {
    const refs = new CallRefs(30);
    refs.add('read:a', { traceId: 't', spanId: 'not-a-span-id!!!' });
    refs.add('read:a', { traceId: 't', spanId: '123' });
    expect(refs.of(['read:a'])).toEqual([]);
  });

  it('a run that spans many traces keeps only the trace ids of the calls it holds', () => {
    const refs = new CallRefs(3);
    for (let i = 0; i < 100; i += 1) refs.add('read:a', { traceId: `trace-${i}`, spanId: span(i + 1) });
    expect(refs.of(['read:a'])).toEqual([97, 98, 99].map((i) => ({ traceId: `trace-${i}`, spanId: span(i + 1) })));
    expect((refs as unknown as { traces: string[] }).traces.length).toBeLessThanOrEqual(6);
  });

  it('signatureDigest is a stable 32-bit digest', () => {
    expect(signatureDigest('read:a')).toBe(signatureDigest('read:a'));
    expect(signatureDigest('read:a')).not.toBe(signatureDigest('read:b'));
    expect(signatureDigest('x') >>> 0).toBe(signatureDigest('x'));
  });
});

describe('PackedRing', () => {
  it('grows to maxRecords, then overwrites the oldest', () => {
    const ring = new PackedRing(Float64Array, 2, 6);
    for (let i = 0; i < 9; i += 1) {
      const at = ring.append();
      ring.slots[at] = i;
      ring.slots[at + 1] = i * 10;
    }
    expect(ring.slots.length).toBe(12);
    expect(ring.oldest).toBe(3);
    const held = [];
    for (let seq = ring.oldest; seq < ring.count; seq += 1) held.push(ring.slots[ring.offset(seq)]);
    expect(held).toEqual([3, 4, 5, 6, 7, 8]);
  });
});
