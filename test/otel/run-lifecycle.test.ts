import { afterEach, describe, expect, it } from 'vitest';
import * as sc from '../../src/semconv.js';
import {
  compactionRetrySpan,
  createOtelHarness,
  endToolSpan,
  resetOtelGlobals,
  startRunSpan,
  startToolSpan,
  toolCall,
  W2_C3,
} from '../helpers/otel-harness.js';

afterEach(resetOtelGlobals);

describe('run lifetime', () => {
  it('a trace-scoped run is released when its root ends, also when the root carries only an agent id', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    for (let i = 0; i < 50; i += 1) {
      const root = startRunSpan(h.tracer, { agentId: 'coder' }); // no run id: the run is the trace
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
      root.end();
    }
    for (let i = 0; i < 50; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, agentId: 'coder' }, { result: 'x' });
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 0, releasedRuns: { 'root-ended': 100 } });
  });

  it('a run opened by two root spans with the same run id lives until the last of them ends', async () => {
    const h = await createOtelHarness({ config: W2_C3, abortOnCritical: true });
    const signal = h.processor.runSignal('shared');
    const first = startRunSpan(h.tracer, { runId: 'shared' });
    const second = startRunSpan(h.tracer, { runId: 'shared' });
    toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: first }, { result: 'x' });
    first.end();
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: second }, { result: 'x' });
    expect(h.loopEvents.map((e) => `${e.level}:${e.count}`)).toEqual(['warning:2', 'critical:3']);
    expect(signal.aborted).toBe(true);
    second.end();
    expect(h.processor.getStats().liveRuns).toBe(0);
    expect(h.processor.runSignal('shared')).not.toBe(signal);
  });

  it('a runSignal is dropped when its run root ends, even after an idle release', async () => {
    let now = 0;
    const h = await createOtelHarness({ config: W2_C3, abortOnCritical: true, clock: () => now, runIdleTtlMs: 1000 });
    const root = startRunSpan(h.tracer, { runId: 'R' });
    const signal = h.processor.runSignal('R');
    for (let i = 0; i < 4; i += 1)
      toolCall(h.tracer, { tool: 'read', args: { path: 'a' }, parent: root }, { result: 'x' });
    expect(signal.aborted).toBe(true);
    now += 5000;
    toolCall(h.tracer, { tool: 'other', args: {}, runId: 'elsewhere' }, { result: 'y' }); // runs the idle sweep
    expect(h.processor.getStats().releasedRuns.idle).toBe(1);
    root.end();
    const next = h.processor.runSignal('R');
    expect(next).not.toBe(signal);
    expect(next.aborted).toBe(false);
  });

  it('a call judged only at its end is recorded even when critical: it ran, so the post-compaction guard sees it', async () => {
    const h = await createOtelHarness({ config: W2_C3 });
    const run = startRunSpan(h.tracer, { runId: 'late' });
    const lateCall = () => {
      const span = startToolSpan(h.tracer, { tool: 'gateway', parent: run }); // arguments arrive at end
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, '{"action":"lookup"}');
      endToolSpan(span, { result: 'timeout' });
    };
    for (let i = 0; i < 5; i += 1) lateCall();
    expect(h.loopEvents.map((e) => `${e.level}:${e.count}`)).toEqual(['warning:2', 'critical:3', 'critical:4']);
    compactionRetrySpan(h.tracer, run);
    for (let i = 0; i < 3; i += 1) lateCall();
    expect(h.abortEvents.map((e) => `${e.code}:${e.count}`)).toEqual(['compaction_loop_persisted:3']);
    run.end();
  });
});
