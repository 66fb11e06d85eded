/**
 * A tool span holds its run from start to end: the registry is touched once per span, and a run
 * with a call in flight is never released as idle, however long the call runs. Driven through
 * the processor on a real `BasicTracerProvider`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as sc from '../../src/semconv.js';
import {
  createOtelHarness,
  endToolSpan,
  resetOtelGlobals,
  startRunSpan,
  startToolSpan,
  toolCall,
  W2_C3,
} from '../helpers/otel-harness.js';

afterEach(resetOtelGlobals);

describe('a run with a tool span in flight', () => {
  it('is not idle while a call runs past the idle TTL: its history goes on; it is idle from the call’s end', async () => {
    let now = 0;
    const h = await createOtelHarness({ config: W2_C3, clock: () => now, runIdleTtlMs: 1000 });
    const root = startRunSpan(h.tracer, { runId: 'R' });
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
    expect(h.loopEvents.map((e) => `${e.level}:${e.count}`)).toEqual(['warning:2']);

    const long = startToolSpan(h.tracer, { tool: 'exec', args: { command: 'make' }, parent: root });
    now += 5000;
    toolCall(h.tracer, { tool: 'other', args: {}, runId: 'elsewhere' }, { result: 'y' }); // runs the idle sweep
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 2, releasedRuns: { idle: 0 } });
    endToolSpan(long, { result: 'built' });

    // The run kept its history: the fourth identical read is critical.
    toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
    expect(h.loopEvents.map((e) => `${e.level}:${e.count}`)).toEqual(['warning:2', 'critical:3']);

    // Nothing in flight: the run is idle again, from its last call's end.
    now += 999;
    toolCall(h.tracer, { tool: 'other', args: {}, runId: 'elsewhere' }, { result: 'y' });
    expect(h.processor.getStats().releasedRuns.idle).toBe(0);
    now += 250; // the next sweep (they run at most every idleTtlMs / 4)
    toolCall(h.tracer, { tool: 'other', args: {}, runId: 'elsewhere' }, { result: 'y' });
    expect(h.processor.getStats().releasedRuns.idle).toBe(1);
    expect(h.processor.getStats().liveRuns).toBe(1);
    root.end();
  });

  it('is idle from the end of its last call, not its start', async () => {
    let now = 0;
    const h = await createOtelHarness({ config: W2_C3, clock: () => now, runIdleTtlMs: 1000 });
    const root = startRunSpan(h.tracer, { runId: 'R' });
    const long = startToolSpan(h.tracer, { tool: 'exec', args: { command: 'make' }, parent: root });
    now += 3000;
    endToolSpan(long, { result: 'built' });
    now += 600;
    toolCall(h.tracer, { tool: 'other', args: {}, runId: 'elsewhere' }, { result: 'y' });
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 2, releasedRuns: { idle: 0 } });
    root.end();
    expect(h.processor.getStats().releasedRuns['root-ended']).toBe(1);
  });

  it('reads the clock once as a call starts and once as it ends, for its run’s activity and its record', async () => {
    let reads = 0;
    const h = await createOtelHarness({ config: W2_C3, clock: () => (reads += 1) * 100 });
    const root = startRunSpan(h.tracer, { runId: 'R' });
    const call = startToolSpan(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root });
    expect(reads).toBe(1);
    endToolSpan(call, { result: 'x' });
    expect(reads).toBe(2);
    // The third call's warning measures (one more reading) from the first call's record, stamped 100.
    for (let i = 0; i < 2; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
    expect(h.loopEvents.map((e) => [e.level, e.wastedMs])).toEqual([['warning', 600 - 100]]);
    expect(reads).toBe(7);
    // Arguments known only at the end: the one reading there serves the run and the call's record.
    const late = startToolSpan(h.tracer, { tool: 'read', parent: root });
    expect(reads).toBe(8);
    late.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, '{"path":"b"}');
    endToolSpan(late, { result: 'x' });
    expect(reads).toBe(9);
    root.end();
  });

  it('whose root ends while a call runs is released, and the call’s end starts the run afresh', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    const root = startRunSpan(h.tracer, { runId: 'R' });
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
    const late = startToolSpan(h.tracer, { tool: 'read', args: { path: 'b' }, parent: root });
    root.end();
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 0, releasedRuns: { 'root-ended': 1 } });
    endToolSpan(late, { result: 'x' });
    expect(h.processor.getStats().liveRuns).toBe(1);
    toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, runId: 'R' }, { result: 'x' });
    // A fresh history: one read of 'a' in it, no event beyond the first run's warning.
    expect(h.loopEvents.map((e) => `${e.level}:${e.count}`)).toEqual(['warning:2']);
  });
});
