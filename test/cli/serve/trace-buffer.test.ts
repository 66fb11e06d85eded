/**
 * The per-trace buffer: a trace waits for its root and a quiet grace period, or for its maximum
 * wait, or until it holds too many spans; a full buffer says so.
 */
import { describe, expect, it } from 'vitest';
import { TraceBuffer } from '../../../src/cli/serve/trace-buffer.js';

interface Span {
  readonly trace: string;
  readonly name: string;
  readonly root?: boolean;
}

const buffer = (limits: Partial<ConstructorParameters<typeof TraceBuffer>[0]> = {}) =>
  new TraceBuffer<Span>(
    { graceMs: 100, maxWaitMs: 1000, maxSpans: 10, maxTraceSpans: 5, ...limits },
    { traceOf: (span) => span.trace, isRoot: (span) => span.root === true },
  );
const names = (traces: Span[][]) => traces.map((spans) => spans.map((span) => span.name));

describe('TraceBuffer', () => {
  it('hands a trace out once its root came and the grace period passed without another span of it', () => {
    const spans = buffer();
    spans.add([{ trace: 'a', name: 'a1' }], 0);
    spans.add([{ trace: 'a', name: 'root', root: true }], 50);
    expect(spans.due(140)).toEqual([]);
    spans.add([{ trace: 'a', name: 'late' }], 140);
    expect(spans.due(230)).toEqual([]);
    expect(names(spans.due(240))).toEqual([['a1', 'root', 'late']]);
    expect(spans.spans).toBe(0);
  });

  it('keeps a trace without its root until its oldest span waited the maximum, quiet or not', () => {
    const spans = buffer();
    spans.add([{ trace: 'a', name: 'a1' }], 0);
    expect(spans.due(500)).toEqual([]);
    spans.add([{ trace: 'a', name: 'a2' }], 990);
    expect(names(spans.due(1000))).toEqual([['a1', 'a2']]);
    // Its next spans start a new wait.
    spans.add([{ trace: 'a', name: 'a3' }], 1001);
    expect(spans.due(1100)).toEqual([]);
  });

  it('hands a trace out at once when it holds the most spans a trace may', () => {
    const spans = buffer({ maxTraceSpans: 2 });
    const ready = spans.add(
      [
        { trace: 'a', name: 'a1' },
        { trace: 'b', name: 'b1' },
        { trace: 'a', name: 'a2' },
        { trace: 'a', name: 'a3' },
      ],
      0,
    );
    expect(names(ready)).toEqual([['a1', 'a2']]);
    expect(spans.size).toBe(2);
    expect(names(spans.drain())).toEqual([['b1'], ['a3']]);
  });

  it('is full once it holds its most spans', () => {
    const spans = buffer({ maxSpans: 3 });
    spans.add(
      [
        { trace: 'a', name: 'a1' },
        { trace: 'b', name: 'b1' },
      ],
      0,
    );
    expect(spans.full).toBe(false);
    spans.add([{ trace: 'c', name: 'c1' }], 0);
    expect(spans.full).toBe(true);
    spans.drain();
    expect(spans.full).toBe(false);
  });
});
