/**
 * Acceptance: memory is bounded. Run state is released when the run's root span
 * ends, after an idle TTL (for roots that never end, e.g. an aborted `streamText`), and by a
 * max-live-runs cap that evicts the least recently active run and reports it once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LIVE_RUNS, DEFAULT_RUN_IDLE_TTL_MS, ToolLoopBlockedError } from '../../src/index.js';
import {
  C0,
  compactionRetrySpan,
  createOtelHarness,
  LOW_THRESHOLDS,
  R,
  recordDiag,
  resetOtelGlobals,
  sc,
  spanEvents,
  startRunSpan,
  toolCall,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

const READ = { tool: 'read', args: { path: '/same.txt' } };

describe('release when the run root ends', () => {
  it('10 000 runs, each a root span with tool spans that then ends, leave no run state behind', async () => {
    const h = await createOtelHarness({ config: C0 });
    h.exporter.reset();
    for (let i = 0; i < 10_000; i += 1) {
      const root = startRunSpan(h.tracer, { runId: `run-${i}` });
      toolCall(h.tracer, { ...READ, parent: root }, { result: R('ok') });
      toolCall(h.tracer, { tool: 'list', args: { dir: `/d${i}` }, parent: root }, { result: R('ok') });
      if (i === 0) expect(h.processor.getStats().liveRuns).toBe(1);
      root.end();
      if (i % 1000 === 999) h.exporter.reset(); // keep the test's own exporter small
    }
    const stats = h.processor.getStats();
    expect(stats.liveRuns).toBe(0);
    expect(stats.releasedRuns['root-ended']).toBe(10_000);
    expect(stats.releasedRuns.idle + stats.releasedRuns.capacity).toBe(0);
  });

  it('a run that is still open keeps its state (control): only ended roots are released', async () => {
    const h = await createOtelHarness({ config: C0 });
    const open = startRunSpan(h.tracer, { runId: 'run-open' });
    const closed = startRunSpan(h.tracer, { runId: 'run-closed' });
    toolCall(h.tracer, { ...READ, parent: open });
    toolCall(h.tracer, { ...READ, parent: closed });
    closed.end();
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 1, releasedRuns: { 'root-ended': 1 } });
    open.end();
    expect(h.processor.getStats().liveRuns).toBe(0);
  });

  it('provider shutdown releases every live run', async () => {
    const h = await createOtelHarness({ config: C0 });
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { ...READ, parent: startRunSpan(h.tracer, { runId: `open-${i}` }) });
    expect(h.processor.getStats().liveRuns).toBe(3);
    await h.shutdown();
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 0, releasedRuns: { shutdown: 3 } });
  });

  it('documents its defaults: a 15-minute idle TTL and 10 000 live runs', () => {
    expect(DEFAULT_RUN_IDLE_TTL_MS).toBe(15 * 60 * 1000);
    expect(DEFAULT_MAX_LIVE_RUNS).toBe(10_000);
  });
});

describe('roots that never end', () => {
  it('are released after the idle TTL once the clock passes it and one more tool span starts', async () => {
    let now = 1_000_000;
    const h = await createOtelHarness({ config: C0, clock: () => now, runIdleTtlMs: 60_000 });
    for (let i = 0; i < 50; i += 1) {
      const root = startRunSpan(h.tracer, { runId: `stuck-${i}` }); // never ended
      toolCall(h.tracer, { ...READ, parent: root });
      now += 10;
    }
    expect(h.processor.getStats().liveRuns).toBe(50);

    now += 30_000; // not yet idle for 60 s
    toolCall(h.tracer, { ...READ, parent: startRunSpan(h.tracer, { runId: 'probe-1' }) });
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 51, releasedRuns: { idle: 0 } });

    now += 60_000;
    toolCall(h.tracer, { ...READ, parent: startRunSpan(h.tracer, { runId: 'fresh' }) });
    const stats = h.processor.getStats();
    expect(stats.releasedRuns.idle).toBe(51);
    expect(stats.liveRuns).toBe(1);
  });

  it('an idle-released run starts counting from zero again', async () => {
    let now = 5_000;
    const h = await createOtelHarness({ config: C0, clock: () => now, runIdleTtlMs: 1_000 });
    const root = startRunSpan(h.tracer, { runId: 'idle-run' });
    for (let i = 0; i < 10; i += 1) toolCall(h.tracer, { ...READ, parent: root });
    now += 5_000;
    const after = toolCall(h.tracer, { ...READ, parent: root });
    expect(spanEvents(after)).toEqual([]);
    expect(h.processor.getStats().releasedRuns.idle).toBe(1);
  });

  it('a runSignal obtained before an idle release still aborts when the resumed run is aborted', async () => {
    let now = 1_000;
    const h = await createOtelHarness({ config: {}, clock: () => now, runIdleTtlMs: 1_000 });
    const root = startRunSpan(h.tracer, { runId: 'slow-run' });
    const signal = h.processor.runSignal('slow-run');
    toolCall(h.tracer, { tool: 'approve', args: {}, parent: root }); // then a long wait (e.g. human approval)
    now += 5_000;
    toolCall(h.tracer, { tool: 'other', args: {}, parent: startRunSpan(h.tracer, { runId: 'other-run' }) }); // sweep runs
    expect(h.processor.getStats().releasedRuns.idle).toBe(1);
    compactionRetrySpan(h.tracer, root);
    for (let i = 0; i < 3; i += 1)
      toolCall(h.tracer, { tool: 'gateway', args: { q: 1 }, parent: root }, { result: R('same') });
    expect(h.abortEvents).toHaveLength(1); // the guard did fire for slow-run…
    expect(signal.aborted).toBe(true); // …and the signal handed out before the release is aborted
    root.end();
  });

  it('a runSignal obtained before a capacity eviction still aborts when the resumed run is aborted', async () => {
    const h = await createOtelHarness({ config: LOW_THRESHOLDS, maxLiveRuns: 1, abortOnCritical: true });
    const runA = startRunSpan(h.tracer, { runId: 'run-A' }); // neither root ends during the test
    const runB = startRunSpan(h.tracer, { runId: 'run-B' });
    const signal = h.processor.runSignal('run-A');
    toolCall(h.tracer, { tool: 'approve', args: { n: 1 }, parent: runA }, { result: R('ok') }); // A is live
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 1, releasedRuns: { capacity: 0 } });
    toolCall(h.tracer, { tool: 'other', args: {}, parent: runB }, { result: R('ok') }); // B's activity evicts A
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 1, releasedRuns: { capacity: 1 } });
    expect(signal.aborted).toBe(false);

    // A resumes (evicting B) and loops: critical at the 5th identical call (LOW_THRESHOLDS C 4).
    const calls = [];
    for (let i = 0; i < 5; i += 1)
      calls.push(toolCall(h.tracer, { tool: 'poll', args: { job: 7 }, parent: runA }, { result: R('same') }));
    expect(h.processor.getStats().releasedRuns.capacity).toBe(2);
    expect(spanEvents(calls[4], sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    expect(h.loopEvents.at(-1)).toMatchObject({ level: 'critical', runId: 'run-A' });
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    expect(h.processor.runSignal('run-A')).toBe(signal);
    runA.end();
    runB.end();
  });

  it('the maxLiveRuns cap evicts the least recently active run first and reports it through diag exactly once', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({ config: C0, maxLiveRuns: 2 });
    const runA = startRunSpan(h.tracer, { runId: 'run-A' }); // none of these roots ever ends
    const runB = startRunSpan(h.tracer, { runId: 'run-B' });
    const runC = startRunSpan(h.tracer, { runId: 'run-C' });
    for (let i = 0; i < 10; i += 1) toolCall(h.tracer, { ...READ, parent: runA });
    for (let i = 0; i < 10; i += 1) toolCall(h.tracer, { ...READ, parent: runB });
    // A is touched again (a different call), so B is now the least recently active.
    toolCall(h.tracer, { tool: 'list', args: { dir: '/' }, parent: runA });
    toolCall(h.tracer, { tool: 'list', args: { dir: '/' }, parent: runC }); // third run: evicts B
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 2, releasedRuns: { capacity: 1 } });

    const keptRepeat = toolCall(h.tracer, { ...READ, parent: runA });
    expect(
      spanEvents(keptRepeat, sc.EVENT_TOOL_LOOP_WARNING).map((event) => event.attributes?.[sc.ATTR_TOOL_LOOP_COUNT]),
    ).toEqual([10]);

    const evictedRepeat = toolCall(h.tracer, { ...READ, parent: runB }); // B starts from zero (and evicts C)
    expect(spanEvents(evictedRepeat)).toEqual([]);
    expect(h.processor.getStats()).toMatchObject({ liveRuns: 2, releasedRuns: { capacity: 2 } });

    const capacityWarnings = diagLog.at('warn').filter((line) => line.includes('live runs'));
    expect(capacityWarnings).toHaveLength(1);
    expect(capacityWarnings[0]).toContain('more than 2 live runs');
  });
});
