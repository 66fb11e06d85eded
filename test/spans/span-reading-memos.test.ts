/**
 * The span reader's memos: a call or result read again with the same raw texts is not parsed and
 * hashed again, and is described exactly as before. Spans are a real provider's.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { BasicTracerProvider, type Span } from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, hashToolOutcome, type Digester } from '../../src/engine-entry.js';
import * as sc from '../../src/semconv.js';
import { DEFAULT_ADAPTERS } from '../../src/spans/adapters/index.js';
import { AdapterSpanReader } from '../../src/spans/span-reading.js';

let real: Digester;
beforeAll(async () => {
  real = await createDigester();
});

/** The real digester, counting what it is asked to hash. */
function countingDigester(): { digester: Digester; count: () => number } {
  let calls = 0;
  return {
    digester: {
      digest: (value, mapString) => ((calls += 1), real.digest(value, mapString)),
      digestText: (text) => ((calls += 1), real.digestText(text)),
    },
    count: () => calls,
  };
}

const tracer = new BasicTracerProvider().getTracer('span-reading-memos');
/** Results hashed as their spans end (as a run does for calls it has seen), so the memos keep them. */
const EAGER = { deferResultsFrom: Number.POSITIVE_INFINITY };
const CONTENT = 'const answer = 42;\n'.repeat(40);

/** A `write` tool span with its arguments at start and its result set before it ends; fresh strings each time. */
function toolSpan(path: string, result: string): Span {
  const span = tracer.startSpan(
    'execute_tool write',
    {
      attributes: {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
        [sc.ATTR_GEN_AI_TOOL_NAME]: 'write',
        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ path, content: CONTENT }),
      },
    },
    ROOT_CONTEXT,
  ) as Span;
  span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.parse(JSON.stringify(result)) as string);
  return span;
}

const RESULT = JSON.stringify({ content: [{ type: 'text', text: `wrote:\n${CONTENT}` }], details: {} });

/** What the reader makes of a span: its call, its outcome's facts, and the hashes that cost. */
function read(reader: AdapterSpanReader, count: () => number, span: Span) {
  const before = count();
  const tool = reader.readStart(span).tool!;
  const call = tool.callAtStart();
  const { similarity, ...outcome } = tool.outcome(span);
  const hashed = count() - before;
  // Near-duplicate evidence, computed on first use (a remembered outcome computes it again from the texts).
  return { call, outcome, hashed, evidence: similarity?.() };
}

describe('AdapterSpanReader memos', () => {
  it('describes a call and its outcome made again without hashing them again', () => {
    const { digester, count } = countingDigester();
    const reader = new AdapterSpanReader(DEFAULT_ADAPTERS, digester, EAGER);
    const first = read(reader, count, toolSpan('/src/a.ts', RESULT));
    expect(first.hashed).toBeGreaterThanOrEqual(2);
    // The engine's own hashing of the parsed texts: the reader reuses the call's target digest.
    const { similarity: _, ...reference } = hashToolOutcome(real, {
      toolName: 'write',
      params: { path: '/src/a.ts', content: CONTENT },
      result: JSON.parse(RESULT) as unknown,
    });
    expect(first.outcome).toEqual(reference);
    expect(first.outcome.mutationTargetHash).toBe(first.call?.mutationTargetHash);
    const again = read(reader, count, toolSpan('/src/a.ts', RESULT));
    expect(again).toEqual({ ...first, hashed: 0 });
    expect(first.evidence?.resultSketch).toBeDefined();
  });

  it('hashes again what differs: other arguments, another result, or no memos', () => {
    const { digester, count } = countingDigester();
    const reader = new AdapterSpanReader(DEFAULT_ADAPTERS, digester, EAGER);
    const fresh = new AdapterSpanReader(DEFAULT_ADAPTERS, digester, { ...EAGER, memos: false });
    read(reader, count, toolSpan('/src/a.ts', RESULT));
    // Same result, other arguments: the outcome is hashed with them (a write's target is in it).
    const other = read(reader, count, toolSpan('/src/b.ts', RESULT));
    expect(other.hashed).toBeGreaterThanOrEqual(2);
    expect(other).toEqual(read(fresh, count, toolSpan('/src/b.ts', RESULT)));
    // Same arguments, another result: the call is remembered, the outcome hashed afresh.
    const changed = `${RESULT.slice(0, -1)},"more":1}`;
    const next = read(reader, count, toolSpan('/src/a.ts', changed));
    expect(next.hashed).toBeGreaterThanOrEqual(1);
    expect(next).toEqual({ ...read(fresh, count, toolSpan('/src/a.ts', changed)), hashed: next.hashed });
    // Without memos, every read hashes.
    expect(read(fresh, count, toolSpan('/src/a.ts', RESULT)).hashed).toBeGreaterThanOrEqual(2);
  });

  it('hashes short texts every time (remembering them would cost more than it saves)', () => {
    const { digester, count } = countingDigester();
    const reader = new AdapterSpanReader(DEFAULT_ADAPTERS, digester);
    const short = (path: string) => {
      const span = tracer.startSpan(
        'execute_tool read',
        {
          attributes: {
            [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
            [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
            [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ path }),
          },
        },
        ROOT_CONTEXT,
      ) as Span;
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, 'ok');
      return span;
    };
    read(reader, count, short('/a'));
    expect(read(reader, count, short('/a')).hashed).toBe(2);
  });

  it('keeps the texts, not the parsed results: a large structure costs its text alone', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      for (let i = 0; i < 3; i += 1) gc();
      return process.memoryUsage().heapUsed;
    };
    const reader = new AdapterSpanReader(DEFAULT_ADAPTERS, real, EAGER);
    // Search hits: ~1 M characters each, parsed into far more heap than that.
    const structured = (n: number) =>
      JSON.stringify({
        hits: Array.from({ length: 12_000 }, (_, i) => ({
          title: `hit ${n}-${i}`,
          url: `https://x.test/${n}/${i}`,
          score: i,
        })),
      });
    const texts = [0, 1, 2, 3].map(structured);
    const textBytes = texts.reduce((sum, text) => sum + text.length, 0);
    const before = heap();
    texts.forEach((text, n) => {
      expect(read(reader, () => 0, toolSpan(`/src/${n}.ts`, text)).evidence).toBeDefined();
    });
    // The memo keeps the four texts (one byte a character here), by design; their parsed hits
    // would take about three times as much again.
    expect(heap() - before).toBeLessThan(1.8 * textBytes);
  });
});
