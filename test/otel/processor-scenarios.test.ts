/**
 * Acceptance: the span processor reproduces OpenClaw's loop-detection scenarios when driven through raw
 * OpenTelemetry API calls only — spans described by the attributes of the span contract (README), no
 * `traceToolCall` / `traceRun` helpers — on a real `BasicTracerProvider`.
 */
import { context, trace, type Span } from '@opentelemetry/api';
import { MeterProvider, type DataPoint } from '@opentelemetry/sdk-metrics';
import { CollectingReader } from '../helpers/collecting-reader.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CompactionLoopPersistedError, getToolLoopVerdict, type LoopEvent } from '../../src/index.js';
import {
  attr,
  C0,
  compactionRetrySpan,
  createOtelHarness,
  endToolSpan,
  loopEventsOf,
  R,
  recordDiag,
  resetOtelGlobals,
  sc,
  spanAttributes,
  spanEvents,
  startRunSpan,
  startToolSpan,
  toolCall,
  type OtelHarness,
  type ToolEnd,
  type ToolSpanInput,
  W2_C3,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

/**
 * The span every tool call of a test hangs under unless the input names a parent: a plain
 * root span without attributes, so its trace is the run scope. Without it each
 * tool span would be a trace root of its own, i.e. a run of its own.
 */
const sessions = new WeakMap<OtelHarness, Span>();
function sessionOf(h: OtelHarness): Span {
  let root = sessions.get(h);
  if (!root) {
    root = startRunSpan(h.tracer, { name: 'session' });
    sessions.set(h, root);
  }
  return root;
}

/** One tool call (start + end) under the test's session span unless `input.parent` is given. */
function one(h: OtelHarness, input: ToolSpanInput, end: ToolEnd = 'none'): Span {
  return toolCall(h.tracer, { ...input, parent: input.parent ?? sessionOf(h) }, end);
}

/** Runs `n` tool calls (start + end), `input`/`end` may depend on the 0-based index. */
function calls(
  h: OtelHarness,
  n: number,
  input: ToolSpanInput | ((i: number) => ToolSpanInput),
  end: ToolEnd | ((i: number) => ToolEnd) = 'none',
): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < n; i += 1) {
    spans.push(one(h, typeof input === 'function' ? input(i) : input, typeof end === 'function' ? end(i) : end));
  }
  return spans;
}

/** `"<index>:<event>:<detector>:<count>"` for every loop event on `spans`, in order. */
function summary(spans: readonly Span[]): string[] {
  const out: string[] = [];
  spans.forEach((span, i) => {
    for (const event of loopEventsOf(span)) {
      out.push(
        `${i}:${event.name}:${String(event.attributes[sc.ATTR_TOOL_LOOP_DETECTOR])}:${String(event.attributes[sc.ATTR_TOOL_LOOP_COUNT])}`,
      );
    }
  });
  return out;
}

/** The single loop event on a span (fails if there is not exactly one). */
function onlyLoopEvent(span: Span): { name: string; attributes: Record<string, unknown> } {
  const events = loopEventsOf(span);
  expect(events).toHaveLength(1);
  return events[0];
}

const READ_SAME = { tool: 'read', args: { path: '/same.txt' } };
const SAME_OUTPUT = { result: R('same output', { ok: true }) };

describe('OpenClaw loop-detection scenarios on raw tool spans', () => {
  it('scenario 1: with no config, 20 identical read calls produce no loop event and no callback', async () => {
    const h = await createOtelHarness();
    const spans = calls(h, 21, READ_SAME, SAME_OUTPUT);
    expect(summary(spans)).toEqual([]);
    expect(h.loopEvents).toEqual([]);
    expect(spans.map((span) => spanAttributes(span)[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual(Array(21).fill(undefined));
  });

  it('scenarios 5 and 6: the 11th identical pending read warns generic_repeat with count 10; the 10th does not', async () => {
    const h = await createOtelHarness({ config: C0 });
    const spans = calls(h, 11, READ_SAME);
    expect(summary(spans)).toEqual([`10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`]);
    const event = onlyLoopEvent(spans[10]);
    expect(event.attributes[sc.ATTR_TOOL_LOOP_LEVEL]).toBe('warning');
    expect(event.attributes[sc.ATTR_TOOL_LOOP_ACTION]).toBe('warn');
    expect(event.attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'WARNING: You have called read 10 times with identical arguments. If this is not making progress, stop retrying and report the task as failed.',
    );
    expect(String(event.attributes[sc.ATTR_TOOL_LOOP_WARNING_KEY])).toMatch(/^generic:read:read:[0-9a-f]+$/);
    expect(spanAttributes(spans[10])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('warning');
    expect(spanAttributes(spans[9])[sc.ATTR_TOOL_LOOP_VERDICT]).toBeUndefined();
  });

  it('scenarios 7 and 8: 20 identical outcomes block the 21st call (generic_repeat critical 20); the 20th call is a suppressed warning with count 19', async () => {
    const h = await createOtelHarness({ config: C0 });
    const spans = calls(h, 21, READ_SAME, SAME_OUTPUT);
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`,
      `20:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:20`,
    ]);
    const blocked = onlyLoopEvent(spans[20]);
    expect(blocked.attributes[sc.ATTR_TOOL_LOOP_LEVEL]).toBe('critical');
    expect(blocked.attributes[sc.ATTR_TOOL_LOOP_ACTION]).toBe('block');
    expect(blocked.attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'CRITICAL: Called read with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
    );
    expect(spanAttributes(spans[20])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    // Scenario 8: after 19 identical outcomes the verdict is a warning with count 19 (suppressed: same bucket as 10).
    expect(getToolLoopVerdict(spans[19])).toMatchObject({
      level: 'warning',
      detector: 'generic_repeat',
      count: 19,
      emitted: false,
    });
  });

  it('scenario 19: with every detector off, identical polls are not stuck at 20 but the global circuit breaker blocks at 30', async () => {
    const h = await createOtelHarness({
      config: {
        tools: {
          loopDetection: {
            enabled: true,
            detectors: { genericRepeat: false, knownPollNoProgress: false, pingPong: false },
          },
        },
      },
    });
    const poll = { tool: 'process', args: { action: 'poll', sessionId: 'sess-1' } };
    const result = {
      result: R('(no new output)\n\nProcess still running.', { status: 'running', aggregated: 'steady' }),
    };
    const spans = calls(h, 31, poll, result);
    expect(summary(spans)).toEqual([`30:${sc.EVENT_TOOL_LOOP_BLOCKED}:global_circuit_breaker:30`]);
    expect(onlyLoopEvent(spans[30]).attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'CRITICAL: process has repeated identical no-progress outcomes 30 times. Session execution blocked by global circuit breaker to prevent runaway loops.',
    );
  });

  it('scenarios 15 and 16: a stuck process poll warns known_poll_no_progress at 10 and blocks at 20', async () => {
    const h = await createOtelHarness({ config: C0 });
    const poll = { tool: 'process', args: { action: 'poll', sessionId: 'sess-1' } };
    const result = {
      result: R('(no new output)\n\nProcess still running.', { status: 'running', aggregated: 'steady' }),
    };
    const spans = calls(h, 21, poll, result);
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:known_poll_no_progress:10`,
      `20:${sc.EVENT_TOOL_LOOP_BLOCKED}:known_poll_no_progress:20`,
    ]);
    expect(onlyLoopEvent(spans[10]).attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toContain('no progress');
    expect(onlyLoopEvent(spans[20]).attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'CRITICAL: Called process with identical arguments and no progress 20 times. This appears to be a stuck polling loop. Session execution blocked to prevent resource waste.',
    );
  });

  it('scenario 17: a poll whose output progresses is never flagged (polls get no generic warning)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const poll = { tool: 'process', args: { action: 'poll', sessionId: 'sess-1' } };
    const spans = calls(h, 26, poll, (i) => ({
      result: R(`line ${i}`, { status: 'running', aggregated: `line ${i}` }),
    }));
    expect(summary(spans)).toEqual([]);
  });

  it('scenario 23: nine alternating pending read/list calls make the 10th (list) a ping_pong warning paired with read', async () => {
    const h = await createOtelHarness({ config: C0 });
    const alternate = (i: number) =>
      i % 2 === 0 ? { tool: 'read', args: { path: '/a.txt' } } : { tool: 'list', args: { dir: '/workspace' } };
    const spans = calls(h, 10, alternate);
    expect(summary(spans)).toEqual([`9:${sc.EVENT_TOOL_LOOP_WARNING}:ping_pong:10`]);
    const event = onlyLoopEvent(spans[9]);
    expect(event.attributes[sc.ATTR_TOOL_LOOP_PAIRED_TOOL]).toBe('read');
    expect(event.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('list');
    expect(event.attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'WARNING: You are alternating between repeated tool-call patterns (10 consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.',
    );
    expect(String(event.attributes[sc.ATTR_TOOL_LOOP_WARNING_KEY])).toMatch(
      /^pingpong:(list|read):[0-9a-f]+\|(list|read):[0-9a-f]+$/,
    );
  });

  it('scenario 24: alternating calls with stable results block the 20th call as ping_pong critical (warning emitted once at 10)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const alternate = (i: number) =>
      i % 2 === 0 ? { tool: 'read', args: { path: '/a.txt' } } : { tool: 'list', args: { dir: '/workspace' } };
    const stable = (i: number) => ({ result: R(i % 2 === 0 ? 'read stable' : 'list stable', { ok: true }) });
    const spans = calls(h, 20, alternate, stable);
    expect(summary(spans)).toEqual([
      `9:${sc.EVENT_TOOL_LOOP_WARNING}:ping_pong:10`,
      `19:${sc.EVENT_TOOL_LOOP_BLOCKED}:ping_pong:20`,
    ]);
    const blocked = onlyLoopEvent(spans[19]);
    expect(blocked.attributes[sc.ATTR_TOOL_LOOP_PAIRED_TOOL]).toBe('read');
    expect(blocked.attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'CRITICAL: You are alternating between repeated tool-call patterns (20 consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.',
    );
  });

  it('scenario 25: alternating calls with progressing results only warn (ping_pong at counts 10 and 20, never blocked)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const alternate = (i: number) =>
      i % 2 === 0 ? { tool: 'read', args: { path: '/a.txt' } } : { tool: 'list', args: { dir: '/workspace' } };
    const progressing = (i: number) => ({ result: R(`${i % 2 === 0 ? 'read' : 'list'} ${i}`, { ok: true }) });
    const spans = calls(h, 20, alternate, progressing);
    expect(summary(spans)).toEqual([
      `9:${sc.EVENT_TOOL_LOOP_WARNING}:ping_pong:10`,
      `19:${sc.EVENT_TOOL_LOOP_WARNING}:ping_pong:20`,
    ]);
  });

  it('scenarios 29 and 31: nine "Tool exec not found" failures are not stuck; after ten the next exec is blocked as unknown_tool_repeat', async () => {
    const h = await createOtelHarness({ config: C0 });
    const exec = (i: number) => ({ tool: 'exec', args: { command: `echo ${i}` } });
    const spans = calls(h, 11, exec, { error: 'Tool exec not found' });
    expect(summary(spans)).toEqual([`10:${sc.EVENT_TOOL_LOOP_BLOCKED}:unknown_tool_repeat:10`]);
    const event = onlyLoopEvent(spans[10]);
    expect(event.attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toBe(
      'CRITICAL: attempted unavailable tool exec 10 times. Stop retrying that missing tool and answer without it.',
    );
    expect(event.attributes[sc.ATTR_TOOL_LOOP_WARNING_KEY]).toBe('unknown-tool:exec:exec');
  });

  it('scenario 31 (exception-event form): an ERROR span without a status message uses the last exception.message', async () => {
    const h = await createOtelHarness({ config: C0 });
    const spans = calls(h, 11, (i) => ({ tool: 'foo_tool', args: { n: i } }), { exception: 'Unknown tool: Foo.Bar' });
    expect(summary(spans)).toEqual([`10:${sc.EVENT_TOOL_LOOP_BLOCKED}:unknown_tool_repeat:10`]);
    expect(onlyLoopEvent(spans[10]).attributes[sc.ATTR_TOOL_LOOP_MESSAGE]).toContain(
      'attempted unavailable tool foo.bar 10 times',
    );
  });

  it('scenarios 41 and 43: sends whose results differ only in delivery ids count as identical outcomes and block at 21', async () => {
    const h = await createOtelHarness({ config: C0 });
    const send = { tool: 'message', args: { action: 'send', target: 'feishu:oc_chat', text: 'ping' } };
    const payload = (i: number) => ({
      ok: true,
      channel: 'feishu',
      chatId: 'oc_chat',
      runId: `run_${i}`,
      messageId: `om_${i}`,
      receipt: { platformMessageId: `p_${i}` },
    });
    const spans = calls(h, 21, send, (i) => ({ result: R(JSON.stringify(payload(i), null, 2), payload(i)) }));
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`,
      `20:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:20`,
    ]);
  });

  it('scenario 41 (control): sends whose stable fields change are progress and never block', async () => {
    const h = await createOtelHarness({ config: C0 });
    const send = { tool: 'message', args: { action: 'send', target: 'feishu:oc_chat', text: 'ping' } };
    const payload = (i: number) => ({ ok: true, channel: 'feishu', chatId: `oc_chat_${i}`, messageId: `om_${i}` });
    const spans = calls(h, 21, send, (i) => ({ result: R(JSON.stringify(payload(i)), payload(i)) }));
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`,
      `20:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:20`,
    ]);
  });

  it("scenario 47: a block is sticky — the blocked span's own outcome (veto result, or even a fresh result) is never recorded; its veto extends the streak", async () => {
    const h = await createOtelHarness({ config: C0 });
    const payload = (i: number) => ({ ok: true, messageId: `om_${i}` });
    const send = { tool: 'message', args: { action: 'send', target: 'chat', text: 'ping' } };
    calls(h, 20, send, (i) => ({ result: R('sent', payload(i)) }));
    const first = one(h, send, { result: R('blocked', { status: 'blocked', deniedReason: 'tool-loop' }) });
    // A raw instrumentation may run the tool anyway and report a different result: still a veto.
    const second = one(h, send, { result: R('sent anyway', { ok: false, brandNew: true }) });
    const third = one(h, send, 'none');
    const fourth = one(h, send, { result: R('sent', payload(99)) });
    expect(summary([first, second, third, fourth])).toEqual([
      `0:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:20`,
      `1:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:21`,
      `2:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:22`,
      `3:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:23`,
    ]);
    expect(h.loopEvents.filter((event) => event.level === 'critical')).toHaveLength(4);
  });

  it('scenarios 50 and 51: ten reads in run heartbeat-1 do not warn a read in heartbeat-2, but warn the next read in heartbeat-1', async () => {
    const h = await createOtelHarness({ config: C0 });
    const hb1 = startRunSpan(h.tracer, { runId: 'heartbeat-1' });
    const hb2 = startRunSpan(h.tracer, { runId: 'heartbeat-2' });
    calls(h, 10, { ...READ_SAME, parent: hb1 });
    const other = toolCall(h.tracer, { ...READ_SAME, parent: hb2 });
    const same = toolCall(h.tracer, { ...READ_SAME, parent: hb1 });
    expect(loopEventsOf(other)).toEqual([]);
    const event = onlyLoopEvent(same);
    expect(event.name).toBe(sc.EVENT_TOOL_LOOP_WARNING);
    expect(event.attributes[sc.ATTR_TOOL_LOOP_COUNT]).toBe(10);
    expect(event.attributes[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe('heartbeat-1');
    hb1.end();
    hb2.end();
  });

  it('scenario 66: a progressing exec warns at W and 2W only (counts 10 and 20), never at 11–19 or 21–24', async () => {
    const h = await createOtelHarness({ config: C0 });
    const date = { tool: 'exec', args: { command: 'date' } };
    const tick = (i: number) => ({
      result: R(`tick ${i}`, { status: 'completed', exitCode: 0, durationMs: 100 + i, aggregated: `tick ${i}` }),
    });
    const spans = calls(h, 25, date, tick);
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`,
      `20:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:20`,
    ]);
    expect(h.loopEvents.map((event) => event.count)).toEqual([10, 20]);
    // The suppressed ones were still warnings (the detector matched), just not emitted.
    expect(getToolLoopVerdict(spans[15])).toMatchObject({ level: 'warning', count: 15, emitted: false });
    expect(spanEvents(spans[15])).toEqual([]);
  });

  it('scenario 67: with warningThreshold 3, warnings come at counts 3, 6, 9 (bucket by W, not by a fixed 10)', async () => {
    const h = await createOtelHarness({ config: { tools: { loopDetection: { enabled: true, warningThreshold: 3 } } } });
    const date = { tool: 'exec', args: { command: 'date' } };
    const spans = calls(h, 10, date, (i) => ({
      result: R(`tick ${i}`, { status: 'completed', exitCode: 0, aggregated: `tick ${i}` }),
    }));
    expect(summary(spans)).toEqual([
      `3:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:3`,
      `6:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:6`,
      `9:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:9`,
    ]);
  });

  it('scenario 72: after compaction.retry, three identical (gateway, args, result) triples abort on the third', async () => {
    const diagLog = recordDiag();
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-72', agentId: 'ops' });
    const signal = h.processor.runSignal('run-72');
    const armSpan = compactionRetrySpan(h.tracer, root);
    const gateway = { tool: 'gateway', args: { action: 'lookup', path: 'x' }, parent: root };
    const spans = calls(h, 3, gateway, { result: R('r1', { ok: true }) });

    expect(summary(spans)).toEqual([`2:${sc.EVENT_TOOL_LOOP_ABORTED}:compaction_loop_persisted:3`]);
    const aborted = onlyLoopEvent(spans[2]);
    expect(aborted.attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
      [sc.ATTR_TOOL_LOOP_ACTION]: 'abort',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-72',
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'gateway',
      [sc.ATTR_GEN_AI_AGENT_ID]: 'ops',
      [sc.ATTR_ERROR_TYPE]: 'compaction_loop_persisted',
      [sc.ATTR_TOOL_LOOP_MESSAGE]:
        'CRITICAL: tool gateway repeated 3 times with identical arguments and identical results within 3 attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.',
    });
    expect(spanAttributes(spans[2])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('aborted');
    expect(spanAttributes(spans[1])[sc.ATTR_TOOL_LOOP_VERDICT]).toBeUndefined();

    const armed = spanEvents(armSpan, sc.EVENT_TOOL_LOOP_GUARD_ARMED);
    expect(armed).toHaveLength(1);
    expect(attr(armed[0], sc.ATTR_TOOL_LOOP_WINDOW_SIZE)).toBe(3);
    expect(attr(armed[0], sc.ATTR_TOOL_LOOP_ACTION)).toBe('arm');

    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(CompactionLoopPersistedError);
    expect(h.abortEvents).toHaveLength(1);
    // Scenario 83: arming logs OpenClaw's line through diag.
    expect(diagLog.matching('post-compaction guard armed for 3 attempts').map((line) => line.level)).toEqual(['info']);
    expect(
      diagLog.matching('post-compaction loop persisted: tool=gateway repeated 3 times').map((line) => line.level),
    ).toEqual(['error']);
    root.end();
  });

  it('scenario 73: after compaction.retry, the same call with changing results never aborts', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-73' });
    const signal = h.processor.runSignal('run-73');
    compactionRetrySpan(h.tracer, root);
    const spans = calls(h, 3, { tool: 'read', args: { path: '/x' }, parent: root }, (i) => ({
      result: R(`r${i + 1}`),
    }));
    expect(summary(spans)).toEqual([]);
    expect(h.abortEvents).toEqual([]);
    expect(signal.aborted).toBe(false);
    root.end();
  });

  it('scenario 75: the window closes after windowSize observations; later identical triples do not abort until re-armed', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-75' });
    compactionRetrySpan(h.tracer, root);
    const x = { tool: 'read', args: { path: '/x' }, parent: root };
    const result = { result: R('same') };
    calls(h, 2, x, result);
    toolCall(h.tracer, { tool: 'read', args: { path: '/y' }, parent: root }, result);
    const late = calls(h, 3, x, result);
    expect(summary(late)).toEqual([]);
    compactionRetrySpan(h.tracer, root);
    const rearmed = calls(h, 3, x, result);
    expect(summary(rearmed)).toEqual([`2:${sc.EVENT_TOOL_LOOP_ABORTED}:compaction_loop_persisted:3`]);
    root.end();
  });

  it('scenario 84: loop-vetoed (blocked) calls in the window are not observed and use up no window slot', async () => {
    const h = await createOtelHarness({
      config: W2_C3,
    });
    const root = startRunSpan(h.tracer, { runId: 'run-84' });
    const read = { ...READ_SAME, parent: root };
    const before = calls(h, 4, read, SAME_OUTPUT); // the 4th is blocked
    expect(loopEventsOf(before[3]).map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    compactionRetrySpan(h.tracer, root);
    const vetoed = calls(h, 2, read, SAME_OUTPUT); // still blocked (each veto adds one): vetoes, not observations
    const gateway = calls(h, 3, { tool: 'gateway', args: { q: 1 }, parent: root }, { result: R('r1') });
    expect(summary(vetoed)).toEqual([
      `0:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:4`,
      `1:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:5`,
    ]);
    // (W is 2 here, so the third gateway call also draws a generic warning at start.)
    expect(summary(gateway)).toEqual([
      `2:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:2`,
      `2:${sc.EVENT_TOOL_LOOP_ABORTED}:compaction_loop_persisted:3`,
    ]);
    root.end();
  });

  it('scenario 85: exec outcomes differing only in durationMs are the identical triple for the guard', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-85' });
    compactionRetrySpan(h.tracer, root);
    const ls = { tool: 'exec', args: { command: 'ls' }, parent: root };
    const spans = calls(h, 3, ls, (i) => ({
      result: R('out', { status: 'completed', exitCode: 0, durationMs: 100 + i, aggregated: 'out' }),
    }));
    expect(summary(spans)).toEqual([`2:${sc.EVENT_TOOL_LOOP_ABORTED}:compaction_loop_persisted:3`]);
    root.end();
  });

  it('scenario 78: with enabled:false the guard neither arms (no event) nor aborts', async () => {
    const h = await createOtelHarness({ config: { tools: { loopDetection: { enabled: false } } } });
    const root = startRunSpan(h.tracer, { runId: 'run-78' });
    const arm = compactionRetrySpan(h.tracer, root);
    const spans = calls(h, 3, { tool: 'gateway', args: { action: 'lookup' }, parent: root }, { result: R('r1') });
    expect(spanEvents(arm, sc.EVENT_TOOL_LOOP_GUARD_ARMED)).toEqual([]);
    expect(summary(spans)).toEqual([]);
    expect(h.abortEvents).toEqual([]);
    root.end();
  });
});

describe('run scoping on the span tree', () => {
  it('takes tool_loop.run_id from an ancestor two levels up', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root = startRunSpan(h.tracer, { runId: 'run-ancestor' });
    const step = h.tracer.startSpan('agent step', {}, trace.setSpan(context.active(), root));
    const spans = calls(h, 11, { ...READ_SAME, parent: step });
    expect(summary(spans)).toEqual([`10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`]);
    expect(onlyLoopEvent(spans[10]).attributes[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe('run-ancestor');
    expect(h.loopEvents[0].runId).toBe('run-ancestor');
    step.end();
    root.end();
  });

  it('inherits the run id through a parent context that holds only the parent span context (trace.setSpanContext)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root = startRunSpan(h.tracer, { runId: 'run-span-context' });
    const parentCtx = trace.setSpanContext(context.active(), root.spanContext());
    const spans = calls(h, 11, { ...READ_SAME, parent: parentCtx });
    expect(spans[0].spanContext().traceId).toBe(root.spanContext().traceId);
    expect(summary(spans)).toEqual([`10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`]);
    expect(onlyLoopEvent(spans[10]).attributes[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe('run-span-context');
    root.end();
  });

  it('keeps two runs in one trace apart (sibling spans with different tool_loop.run_id)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const traceRoot = startRunSpan(h.tracer, { name: 'session' });
    const runA = startRunSpan(h.tracer, { runId: 'run-A', parent: traceRoot });
    const runB = startRunSpan(h.tracer, { runId: 'run-B', parent: traceRoot });
    expect(runA.spanContext().traceId).toBe(runB.spanContext().traceId);

    calls(h, 10, { ...READ_SAME, parent: runA });
    const inB = toolCall(h.tracer, { ...READ_SAME, parent: runB });
    const inA = toolCall(h.tracer, { ...READ_SAME, parent: runA });
    expect(loopEventsOf(inB)).toEqual([]);
    expect(onlyLoopEvent(inA).attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_RUN_ID]: 'run-A',
      [sc.ATTR_TOOL_LOOP_COUNT]: 10,
    });
    runA.end();
    runB.end();
    traceRoot.end();
  });

  it('scopes by trace id when no span carries a run id (and traces do not share history)', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root1 = startRunSpan(h.tracer, { name: 'request 1' });
    const root2 = startRunSpan(h.tracer, { name: 'request 2' });
    calls(h, 10, { ...READ_SAME, parent: root1 });
    const other = toolCall(h.tracer, { ...READ_SAME, parent: root2 });
    const same = toolCall(h.tracer, { ...READ_SAME, parent: root1 });
    expect(loopEventsOf(other)).toEqual([]);
    expect(onlyLoopEvent(same).attributes[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe(root1.spanContext().traceId);
    expect(h.loopEvents[0]).toMatchObject({ runId: root1.spanContext().traceId, traceId: root1.spanContext().traceId });
    root1.end();
    root2.end();
  });

  it('applies per-agent config from gen_ai.agent.id on an ancestor: agent "strict" blocks at 3, a default agent does not', async () => {
    const h = await createOtelHarness({
      config: {
        tools: { loopDetection: { enabled: true } },
        agents: { list: [{ id: 'strict', tools: { loopDetection: { warningThreshold: 2, criticalThreshold: 3 } } }] },
      },
    });
    const strict = startRunSpan(h.tracer, { runId: 'run-strict', agentId: 'strict' });
    const relaxed = startRunSpan(h.tracer, { runId: 'run-relaxed', agentId: 'relaxed' });
    const strictSpans = calls(h, 4, { ...READ_SAME, parent: strict }, SAME_OUTPUT);
    const relaxedSpans = calls(h, 4, { ...READ_SAME, parent: relaxed }, SAME_OUTPUT);
    expect(summary(strictSpans)).toEqual([
      `2:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:2`,
      `3:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:3`,
    ]);
    expect(onlyLoopEvent(strictSpans[3]).attributes[sc.ATTR_GEN_AI_AGENT_ID]).toBe('strict');
    expect(summary(relaxedSpans)).toEqual([]);
    expect(h.loopEvents.map((event) => event.agentId)).toEqual(['strict', 'strict']);
    strict.end();
    relaxed.end();
  });

  it('judges a span whose arguments arrive only at end by those arguments, not by their absence at start', async () => {
    const h = await createOtelHarness({ config: C0 });
    // Even spans read /same.txt, odd spans read a fresh path; all of them start without arguments.
    const spans: Span[] = [];
    for (let i = 0; i < 21; i += 1) {
      const span = startToolSpan(h.tracer, { tool: 'read', parent: sessionOf(h) });
      span.setAttribute(
        sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
        JSON.stringify({ path: i % 2 === 0 ? '/same.txt' : `/other-${i}.txt` }),
      );
      endToolSpan(span, 'none');
      spans.push(span);
    }
    // The 11th /same.txt read is span 20; judging at start (no args: all spans alike) would warn at span 10.
    expect(summary(spans)).toEqual([`20:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`]);
    expect(h.loopEvents.map((event) => event.spanId)).toEqual([spans[20].spanContext().spanId]);
  });

  it('detects and annotates at end a tool span whose arguments arrive only at end', async () => {
    const h = await createOtelHarness({ config: C0 });
    const lateArgs = (): Span => {
      const span = startToolSpan(h.tracer, { tool: 'read', parent: sessionOf(h) }); // no arguments at start
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, JSON.stringify({ path: '/same.txt' }));
      endToolSpan(span, SAME_OUTPUT);
      return span;
    };
    const spans: Span[] = [];
    for (let i = 0; i < 22; i += 1) spans.push(lateArgs());
    // Same counts as scenario 7; the critical cannot block (the tool already ran) but is annotated.
    // The call did run, so unlike a veto it is recorded with its outcome: the next count is 21.
    expect(summary(spans)).toEqual([
      `10:${sc.EVENT_TOOL_LOOP_WARNING}:generic_repeat:10`,
      `20:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:20`,
      `21:${sc.EVENT_TOOL_LOOP_BLOCKED}:generic_repeat:21`,
    ]);
    expect(spanAttributes(spans[10])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('warning');
    expect(spanAttributes(spans[20])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    // The events are on the exported spans too (added while the span was still writable).
    const exported = h.finished().filter((span) => span.name === 'execute_tool read');
    expect(exported).toHaveLength(22);
    expect(exported[10].events.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
  });
});

describe('callbacks, redaction and metrics', () => {
  it('onLoopEvent receives LoopEvent objects with every contract field', async () => {
    const h = await createOtelHarness({ config: C0 });
    const root = startRunSpan(h.tracer, { runId: 'run-cb', agentId: 'agent-cb' });
    const alternate = (i: number) => ({
      ...(i % 2 === 0 ? { tool: 'read', args: { path: '/a.txt' } } : { tool: 'list', args: { dir: '/workspace' } }),
      parent: root,
    });
    const spans = calls(h, 20, alternate, (i) => ({ result: R(i % 2 === 0 ? 'a' : 'b') }));
    expect(h.loopEvents).toHaveLength(2);
    const [warning, critical] = h.loopEvents;
    const expectedKeys: Array<keyof LoopEvent> = [
      'level',
      'detector',
      'count',
      'message',
      'toolName',
      'runId',
      'agentId',
      'warningKey',
      'pairedToolName',
      'traceId',
      'spanId',
      'wastedMs',
    ];
    expect(Object.keys(critical).sort()).toEqual([...expectedKeys].sort());
    expect(warning).toEqual({
      level: 'warning',
      detector: 'ping_pong',
      count: 10,
      message: attr(spanEvents(spans[9], sc.EVENT_TOOL_LOOP_WARNING)[0], sc.ATTR_TOOL_LOOP_MESSAGE),
      toolName: 'list',
      runId: 'run-cb',
      agentId: 'agent-cb',
      warningKey: attr(spanEvents(spans[9], sc.EVENT_TOOL_LOOP_WARNING)[0], sc.ATTR_TOOL_LOOP_WARNING_KEY),
      pairedToolName: 'read',
      traceId: spans[9].spanContext().traceId,
      spanId: spans[9].spanContext().spanId,
      wastedMs: expect.any(Number) as number,
    });
    expect(critical).toMatchObject({
      level: 'critical',
      detector: 'ping_pong',
      count: 20,
      spanId: spans[19].spanContext().spanId,
    });
    expect(critical.warningKey).toBe(warning.warningKey);
    root.end();
  });

  it('onAbort receives a LoopAbortEvent whose error is a CompactionLoopPersistedError', async () => {
    const h = await createOtelHarness({ config: {} });
    const root = startRunSpan(h.tracer, { runId: 'run-abort', agentId: 'agent-x' });
    compactionRetrySpan(h.tracer, root);
    const spans = calls(
      h,
      3,
      { tool: 'gateway', args: { action: 'lookup', path: 'x' }, parent: root },
      { result: R('r1') },
    );
    expect(h.abortEvents).toHaveLength(1);
    const event = h.abortEvents[0];
    expect(event).toMatchObject({
      code: 'compaction_loop_persisted',
      detector: 'compaction_loop_persisted',
      toolName: 'gateway',
      count: 3,
      runId: 'run-abort',
      traceId: spans[2].spanContext().traceId,
      spanId: spans[2].spanContext().spanId,
    });
    expect(event.message).toContain('CRITICAL: tool gateway repeated 3 times');
    expect(event.error).toBeInstanceOf(CompactionLoopPersistedError);
    expect(event.error).toBeInstanceOf(Error);
    expect(event.error).toMatchObject({
      name: 'CompactionLoopPersistedError',
      code: 'compaction_loop_persisted',
      count: 3,
      toolName: 'gateway',
      message: event.message,
    });
    root.end();
  });

  it('redactContent: true removes raw arguments and results from exported spans while detection still works', async () => {
    const h = await createOtelHarness({ config: C0, redactContent: true });
    const secretArgs = { path: '/etc/secret-token-args' };
    calls(h, 21, { tool: 'read', args: secretArgs }, { result: R('secret-token-result', { ok: true }) });
    const exported = h.finished();
    expect(exported).toHaveLength(21);
    for (const span of exported) {
      expect(span.attributes).not.toHaveProperty(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
      expect(span.attributes).not.toHaveProperty(sc.ATTR_GEN_AI_TOOL_CALL_RESULT);
      expect(JSON.stringify(span.attributes)).not.toContain('secret-token');
    }
    expect(h.events(sc.EVENT_TOOL_LOOP_WARNING).map(({ event }) => attr(event, sc.ATTR_TOOL_LOOP_COUNT))).toEqual([10]);
    expect(h.events(sc.EVENT_TOOL_LOOP_BLOCKED).map(({ event }) => attr(event, sc.ATTR_TOOL_LOOP_COUNT))).toEqual([20]);
  });

  it('without redactContent the raw content attributes are exported unchanged (control)', async () => {
    const h = await createOtelHarness({ config: C0 });
    one(h, { tool: 'read', args: { path: '/x' } }, { result: 'plain text' });
    const [span] = h.finished();
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBe('{"path":"/x"}');
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT]).toBe('plain text');
  });

  it('counts tool_loop.events on a real MeterProvider with action, detector, level, tool and agent attributes', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const h = await createOtelHarness({ config: C0, meterProvider });
    const root = startRunSpan(h.tracer, { runId: 'run-metrics', agentId: 'agent-m' });
    calls(h, 23, { ...READ_SAME, parent: root }, SAME_OUTPUT); // warn at 10, block at 20, 21, 22
    compactionRetrySpan(h.tracer, root);
    calls(h, 3, { tool: 'gateway', args: { q: 1 }, parent: root }, { result: R('r') }); // arm + abort
    root.end();

    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === sc.METRIC_TOOL_LOOP_EVENTS);
    expect(metric).toBeDefined();
    const points = (metric!.dataPoints as Array<DataPoint<number>>)
      .map((point) => ({ attributes: point.attributes, value: point.value }))
      .sort((a, b) =>
        String(a.attributes[sc.ATTR_TOOL_LOOP_ACTION]).localeCompare(String(b.attributes[sc.ATTR_TOOL_LOOP_ACTION])),
      );
    expect(points).toEqual([
      {
        attributes: {
          [sc.ATTR_TOOL_LOOP_ACTION]: 'abort',
          [sc.ATTR_TOOL_LOOP_DETECTOR]: 'compaction_loop_persisted',
          [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'gateway',
          [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-m',
        },
        value: 1,
      },
      {
        attributes: {
          [sc.ATTR_TOOL_LOOP_ACTION]: 'arm',
          [sc.ATTR_TOOL_LOOP_DETECTOR]: 'compaction_loop_persisted',
          [sc.ATTR_TOOL_LOOP_LEVEL]: 'warning',
          [sc.ATTR_GEN_AI_TOOL_NAME]: '',
          [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-m',
        },
        value: 1,
      },
      {
        attributes: {
          [sc.ATTR_TOOL_LOOP_ACTION]: 'block',
          [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
          [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
          [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-m',
        },
        value: 3,
      },
      {
        attributes: {
          [sc.ATTR_TOOL_LOOP_ACTION]: 'warn',
          [sc.ATTR_TOOL_LOOP_DETECTOR]: 'generic_repeat',
          [sc.ATTR_TOOL_LOOP_LEVEL]: 'warning',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
          [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-m',
        },
        value: 1,
      },
    ]);
    await meterProvider.shutdown();
  });
});
