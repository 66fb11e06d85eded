/** The post-compaction guard reports, on its events, the calls after a compaction that repeat a call from before it. */
import { describe, expect, it } from 'vitest';
import {
  attr,
  compactionRetrySpan,
  createOtelHarness,
  R,
  sc,
  spanEvents,
  startRunSpan,
  toolCall,
} from '../helpers/otel-harness.js';

describe('pre-compaction repeats on the guard events', () => {
  it('a window that closes without an abort adds tool_loop.guard_window_closed with its repeats (scenario 86)', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-86' });
    toolCall(h.tracer, { tool: 'read', args: { path: '/report.md' }, parent: root }, { result: R('v1') });
    toolCall(h.tracer, { tool: 'exec', args: { command: 'ls' }, parent: root }, { result: R('ok') });
    compactionRetrySpan(h.tracer, root);
    toolCall(h.tracer, { tool: 'read', args: { path: '/report.md' }, parent: root }, { result: R('v2') });
    toolCall(h.tracer, { tool: 'read', args: { path: '/other.md' }, parent: root }, { result: R('fresh') });
    const last = toolCall(h.tracer, { tool: 'gateway', args: { action: 'probe' }, parent: root }, { result: R('r1') });
    root.end();
    const [closed] = spanEvents(last, sc.EVENT_TOOL_LOOP_GUARD_WINDOW_CLOSED);
    expect(closed).toBeDefined();
    expect(attr(closed, sc.ATTR_TOOL_LOOP_TOOL_CALLS)).toBe(3);
    expect(attr(closed, sc.ATTR_TOOL_LOOP_PRE_COMPACTION_REPEATS)).toBe(1);
    expect(attr(closed, sc.ATTR_TOOL_LOOP_REPEATED_TOOLS)).toBe('read');
    expect(attr(closed, sc.ATTR_TOOL_LOOP_ACTION)).toBe(sc.ACTION_REPORT);
    expect(attr(closed, sc.ATTR_TOOL_LOOP_MESSAGE)).toBe(
      'post-compaction window closed: toolCalls=3 preCompactionRepeats=1 tools=read',
    );
  });

  it('the abort event carries the repeats of its window', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-abort' });
    const gateway = { tool: 'gateway', args: { action: 'lookup' }, parent: root };
    toolCall(h.tracer, gateway, { result: R('r1') });
    compactionRetrySpan(h.tracer, root);
    toolCall(h.tracer, gateway, { result: R('r1') });
    toolCall(h.tracer, gateway, { result: R('r1') });
    const last = toolCall(h.tracer, gateway, { result: R('r1') });
    root.end();
    const [aborted] = spanEvents(last, sc.EVENT_TOOL_LOOP_ABORTED);
    expect(attr(aborted, sc.ATTR_TOOL_LOOP_PRE_COMPACTION_REPEATS)).toBe(3);
    expect(spanEvents(last, sc.EVENT_TOOL_LOOP_GUARD_WINDOW_CLOSED)).toEqual([]);
  });
});
