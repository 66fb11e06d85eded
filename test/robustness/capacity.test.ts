/**
 * 100 000 concurrent runs (root spans never ended) with `maxLiveRuns: 1000`: the live-run
 * cap evicts the least recently active run first — verified through history behaviour —
 * and reports the drops once through `diag`.
 */
import { ROOT_CONTEXT, trace, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { getToolLoopVerdict, ToolLoopSpanProcessor } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { recordDiag, resetOtelGlobals } from '../helpers/otel-harness.js';

afterAll(() => resetOtelGlobals());

const RUNS = 100_000;
const CAP = 1_000;

/** One tool call in `root`'s run; returns its start verdict level. */
function call(tracer: Tracer, root: Span, args: string, argsHash?: string): string | undefined {
  const attributes: Record<string, string> = { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' };
  if (argsHash !== undefined) attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH] = argsHash;
  else attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = args;
  const span = tracer.startSpan('execute_tool', { attributes }, trace.setSpan(ROOT_CONTEXT, root));
  const level = getToolLoopVerdict(span)?.level;
  if (argsHash !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_RESULT_HASH, 'r');
  else span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, '"same"');
  span.end();
  return level;
}

describe('live-run cap under 100 000 concurrent runs', () => {
  it('evicts the least recently active run first, keeps active ones, stays bounded and reports drops once via diag', async () => {
    const diagLog = recordDiag();
    let now = 0;
    const processor = await ToolLoopSpanProcessor.create({
      config: {
        tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3, historySize: 1_000 } },
      }, // the touches must not push /x out of keep's window
      maxLiveRuns: CAP,
      clock: () => now,
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('capacity');
    const root = (runId: string) =>
      tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } });

    // Two runs with the same history: two identical calls each (the third would warn).
    const keep = root('keep');
    const drop = root('drop');
    for (const run of [keep, drop]) {
      call(tracer, run, '{"path":"/x"}');
      call(tracer, run, '{"path":"/x"}');
    }

    const started = performance.now();
    let maxLive = 0;
    for (let i = 0; i < RUNS; i += 1) {
      now += 1;
      call(tracer, root(`flood-${i}`), '', `read:flood-${i % 7}`); // root spans are never ended
      if (i % 250 === 0) call(tracer, keep, '', `read:touch-${i}`); // keep stays recently active
      maxLive = Math.max(maxLive, processor.getStats().liveRuns);
    }
    const elapsed = performance.now() - started;

    const stats = processor.getStats();
    expect(maxLive).toBeLessThanOrEqual(CAP);
    expect(stats.liveRuns).toBe(CAP);
    expect(stats.releasedRuns.capacity).toBe(RUNS + 2 - CAP);
    // keep's history survived (its third /x call warns with count 2); drop's was evicted first.
    expect(call(tracer, keep, '{"path":"/x"}')).toBe('warning');
    expect(call(tracer, drop, '{"path":"/x"}')).toBeUndefined();
    // The most recent flood runs are still live: a second identical call in flood-(RUNS-1) sees the first.
    // (Its own history: one call with read:flood-x; W 2 needs two, so add one and check the third.)
    const last = root(`flood-${RUNS - 1}`);
    call(tracer, last, '', `read:flood-${(RUNS - 1) % 7}`);
    expect(call(tracer, last, '', `read:flood-${(RUNS - 1) % 7}`)).toBe('warning');

    const capacityWarnings = diagLog.at('warn').filter((line) => line.includes('live runs'));
    expect(capacityWarnings).toHaveLength(1);
    expect(capacityWarnings[0]).toContain(`more than ${CAP} live runs`);
    console.log(
      `[capacity] ${RUNS} concurrent runs through a ${CAP}-run cap: ${elapsed.toFixed(0)} ms, ${stats.releasedRuns.capacity} evicted, 1 diag warning`,
    );
    await provider.shutdown();
  }, 60_000);
});
