/**
 * OpenClaw's run control in `traceToolCall`: a critical is one recovery turn, the next one ends
 * the run; batches are admitted whole; a warned call's result carries the system note.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ToolLoopBlockedError,
  toolLoopSystemNote,
  traceRun,
  traceToolCall,
  traceToolCallBatch,
  type ToolLoopBlockedResult,
} from '../../src/index.js';
import { C0, createOtelHarness, R, resetOtelGlobals, sc, type OtelHarness } from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

async function harness(config: object = C0): Promise<OtelHarness> {
  return createOtelHarness({ config, contextManager: true });
}

const READ = { name: 'read', args: { path: '/same.txt' } };
const SAME = R('same output', { ok: true });
const critical = (count: number) =>
  `CRITICAL: Called read with identical arguments and identical outcomes ${count} times. Session execution blocked to prevent runaway loops.`;
const textOf = (result: unknown) => (result as ToolLoopBlockedResult).content[0].text;

describe('critical = one recovery turn, then stop', () => {
  it('the first critical is not run and tells the model to reassess; the second ends the run', async () => {
    const h = await harness();
    const execute = vi.fn(() => SAME);
    const results: unknown[] = [];
    let signal: AbortSignal | undefined;
    const run = traceRun(h.tracer, { runId: 'recovery' }, async (ctx) => {
      signal = ctx.signal;
      for (let i = 0; i < 20; i += 1) results.push(await traceToolCall(h.tracer, READ, execute));
      results.push(await traceToolCall(h.tracer, READ, execute));
      expect(ctx.signal.aborted).toBe(false);
      results.push(await traceToolCall(h.tracer, READ, execute));
      return 'finished';
    });
    const error = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(execute).toHaveBeenCalledTimes(20);
    expect(results[20]).toEqual({
      content: [
        {
          type: 'text',
          text: `${critical(20)}\n\nDo not repeat this exact tool action. Reassess the task. You may answer the user, ask for clarification, or continue with a different tool or different arguments.`,
        },
      ],
      details: {
        status: 'blocked',
        deniedReason: 'tool-loop',
        reason: critical(20),
        intervention: {
          kind: 'critical-tool-loop',
          stage: 'recovery',
          toolName: 'read',
          detector: 'generic_repeat',
          count: 20,
          reason: critical(20),
        },
      },
      isError: true,
      executionStarted: false,
    });
    expect(results[21]).toMatchObject({
      content: [
        {
          text: `${critical(21)}\n\nCritical tool-loop recovery failed because another critical loop was detected. This run is stopping now.`,
        },
      ],
      details: { intervention: { stage: 'terminate', count: 21 } },
      terminate: true,
    });
    expect(signal!.aborted).toBe(true);
    expect(error).toBeInstanceOf(ToolLoopBlockedError);
    expect(error).toMatchObject({ detector: 'generic_repeat', count: 21, toolName: 'read' });
    const interventions = h
      .finished()
      .map((span) => span.attributes[sc.ATTR_TOOL_LOOP_INTERVENTION])
      .filter((value) => value !== undefined);
    expect(interventions).toEqual([sc.INTERVENTION_RECOVERY, sc.INTERVENTION_TERMINATE]);
  });

  it('the budget stays spent after a successful different action; a new traceRun has a fresh one', async () => {
    const h = await harness();
    const loop = async (runId: string, between: boolean) =>
      traceRun(h.tracer, { runId }, async () => {
        for (let i = 0; i < 20; i += 1) await traceToolCall(h.tracer, READ, () => SAME);
        const first = await traceToolCall(h.tracer, READ, () => SAME);
        if (between) await traceToolCall(h.tracer, { name: 'list', args: { dir: '/' } }, () => 'a b c');
        return [first, await traceToolCall(h.tracer, READ, () => SAME)];
      }).catch((reason: unknown) => reason);
    expect(await loop('budget-1', true)).toBeInstanceOf(ToolLoopBlockedError);
    const fresh = await traceRun(h.tracer, { runId: 'budget-2' }, async () => {
      for (let i = 0; i < 20; i += 1) await traceToolCall(h.tracer, READ, () => SAME);
      return traceToolCall(h.tracer, READ, () => SAME);
    });
    expect(fresh).toMatchObject({ details: { intervention: { stage: 'recovery' } } });
  });

  it('after the run was ended, later calls are not run', async () => {
    const h = await harness();
    const late = vi.fn(() => 'never');
    const results: unknown[] = [];
    await traceRun(h.tracer, { runId: 'ended' }, async () => {
      for (let i = 0; i < 22; i += 1) await traceToolCall(h.tracer, READ, () => SAME);
      results.push(await traceToolCall(h.tracer, { name: 'write', args: { path: '/x' } }, late));
    }).catch(() => undefined);
    expect(late).not.toHaveBeenCalled();
    expect(results[0]).toMatchObject({ terminate: true, executionStarted: false });
  });

  it('endOnSecondCritical false: every critical is a recovery turn, the count climbs to the breaker', async () => {
    const h = await harness();
    const counts = await traceRun(h.tracer, { runId: 'no-end', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 20; i += 1) await traceToolCall(h.tracer, READ, () => SAME);
      const out: Array<[string, number]> = [];
      for (let i = 0; i < 11; i += 1) {
        const result = (await traceToolCall(h.tracer, READ, () => SAME)) as ToolLoopBlockedResult;
        out.push([result.details.intervention.detector, result.details.intervention.count]);
      }
      return out;
    });
    expect(counts.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => ['generic_repeat', 20 + i]));
    expect(counts[10]).toEqual(['global_circuit_breaker', 30]);
  });

  it('exec failures across changing commands reach the critical through the span path', async () => {
    const h = await harness();
    const failure = R('Traceback: missing package', {
      status: 'failed',
      exitCode: 1,
      aggregated: 'Traceback: missing package',
    });
    const last = await traceRun(h.tracer, { runId: 'exec' }, async () => {
      for (let i = 0; i < 20; i += 1)
        await traceToolCall(h.tracer, { name: 'exec', args: { command: `python job-${i}.py` } }, () => failure);
      return traceToolCall(h.tracer, { name: 'exec', args: { command: 'python next.py' } }, () => failure);
    });
    expect(last).toMatchObject({ details: { intervention: { detector: 'generic_repeat', count: 20 } } });
    const failed = h.finished().find((span) => span.name === 'execute_tool exec')!;
    expect(failed.attributes[sc.ATTR_TOOL_LOOP_OUTCOME_KIND]).toBe('terminal-exec-failure');
    expect(failed.attributes[sc.ATTR_TOOL_LOOP_FAILURE_IDENTITY_HASH]).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('call facts through the helpers', () => {
  it('writes to one target through traceToolCall (arguments not recorded) draw the write-churn warning', async () => {
    const h = await harness();
    let warning: string | undefined;
    await traceRun(h.tracer, { runId: 'writes' }, async () => {
      for (let i = 0; i < 11; i += 1)
        await traceToolCall(
          h.tracer,
          { name: 'write', args: { path: '/tmp/report.md', content: `draft ${i}` } },
          (call) => {
            warning = call.warning ?? warning;
            return R('wrote /tmp/report.md', { ok: true });
          },
        );
    });
    expect(warning).toBe(
      'WARNING: write has changed the same target with 10 distinct argument variants and no intervening verification. Continued rewriting is treated as stalled run activity, but this tool call remains allowed. Read or verify the current result before rewriting it again.',
    );
    const [event] = h.events(sc.EVENT_TOOL_LOOP_WARNING);
    expect(event.event.attributes?.[sc.ATTR_TOOL_LOOP_DETECTOR]).toBe('argument_churn');
    expect(event.event.attributes?.[sc.ATTR_TOOL_LOOP_LIVENESS_SIGNAL]).toBe('argument_churn');
    expect(event.event.attributes?.[sc.ATTR_TOOL_LOOP_CHURN_ACTIVE_MS]).toBe(0);
  });

  it('typed errors of the meta-tool tool_call count per inner tool through traceToolCall', async () => {
    const h = await harness();
    const verdicts = await traceRun(h.tracer, { runId: 'typed' }, async () => {
      for (let i = 0; i < 5; i += 1)
        await traceToolCall(h.tracer, { name: 'tool_call', args: { id: 'story.save', args: { rev: i } } }, () => {
          throw new Error('typed_code=EXPECTED_VERSION_CONFLICT');
        }).catch(() => undefined);
      return traceToolCall(h.tracer, { name: 'tool_call', args: { id: 'story.save', args: { rev: 9 } } }, () => 'ran');
    });
    expect(verdicts).toMatchObject({ details: { intervention: { detector: 'typed_error_repeat', count: 5 } } });
  });
});

describe('batch admission', () => {
  const POLL = { name: 'process', args: { action: 'poll', sessionId: 's1' } };
  const RUNNING = R('still running', { status: 'running' });

  it('a batch [poll, poll] after 19 identical polls is critical on the second; neither runs', async () => {
    const h = await harness();
    const execute = vi.fn(() => RUNNING);
    const results = await traceRun(h.tracer, { runId: 'batch' }, async () => {
      for (let i = 0; i < 19; i += 1) await traceToolCall(h.tracer, POLL, () => RUNNING);
      return traceToolCallBatch(h.tracer, [
        { ...POLL, callId: 'p1', execute },
        { ...POLL, callId: 'p2', execute },
      ]);
    });
    expect(execute).not.toHaveBeenCalled();
    expect(results.map(textOf)).toEqual([
      'This tool was not executed because another call in the batch triggered critical tool-loop recovery. Reassess the task before choosing the next action.',
      expect.stringMatching(/^CRITICAL: Called process with identical arguments and no progress 20 times\./),
    ]);
    expect(results[1]).toMatchObject({
      details: { intervention: { detector: 'known_poll_no_progress', count: 20, toolCallId: 'p2' } },
    });
  });

  it('members after the critical one are not started; a clean batch runs in order', async () => {
    const h = await harness();
    const order: string[] = [];
    const results = await traceRun(h.tracer, { runId: 'clean' }, () =>
      traceToolCallBatch(h.tracer, [
        { name: 'read', args: { path: '/a' }, execute: () => (order.push('a'), 'A') },
        { name: 'read', args: { path: '/b' }, execute: () => (order.push('b'), 'B') },
      ]),
    );
    expect(results).toEqual(['A', 'B']);
    expect(order).toEqual(['a', 'b']);
  });
});

describe('warnings reach the model', () => {
  it('the warned call runs and its result gets the system note, after the outcome was hashed', async () => {
    const h = await harness();
    const bodies: Array<{ warning?: string; systemNote?: string }> = [];
    const results = await traceRun(h.tracer, { runId: 'notes' }, async () => {
      const out: unknown[] = [];
      for (let i = 0; i < 12; i += 1)
        out.push(
          await traceToolCall(h.tracer, READ, ({ warning, systemNote }) => {
            bodies.push({ warning, systemNote });
            return i % 2 === 0 ? 'text result' : SAME;
          }),
        );
      return out;
    });
    const note = toolLoopSystemNote(10);
    expect(note).toBe(
      '[System note: Tool-loop warning after 10 repeated calls. Change your approach or stop if you are not making progress.]',
    );
    expect(bodies[10]).toEqual({
      warning:
        'WARNING: You have called read 10 times with identical arguments. If this is not making progress, stop retrying and report the task as failed.',
      systemNote: note,
    });
    expect(results[10]).toBe(`text result\n\n${note}`);
    // Once per bucket: the 12th call's warning (count 11) is suppressed, so no note.
    expect(results[11]).toEqual(SAME);
    const [warned] = h.events(sc.EVENT_TOOL_LOOP_WARNING);
    expect(warned.event.attributes?.[sc.ATTR_TOOL_LOOP_SYSTEM_NOTE]).toBe(note);
    // The hash of the 11th outcome is the plain text's, not the text with the note.
    const hashes = h
      .finished()
      .filter((span) => span.name === 'execute_tool read')
      .map((span) => span.attributes[sc.ATTR_TOOL_LOOP_RESULT_HASH]);
    expect(hashes[10]).toBe(hashes[0]);
  });

  it('an OpenClaw-shaped result gets one more content item; other shapes are returned as they are', async () => {
    const h = await harness({ tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 9 } } });
    const results = await traceRun(h.tracer, { runId: 'shapes' }, async () => {
      await traceToolCall(h.tracer, READ, () => SAME);
      await traceToolCall(h.tracer, READ, () => SAME);
      const shaped = await traceToolCall(h.tracer, READ, () => SAME);
      const other = await traceToolCall(h.tracer, { name: 'ls', args: {} }, () => [1]);
      await traceToolCall(h.tracer, { name: 'ls', args: {} }, () => [1]);
      const array = await traceToolCall(h.tracer, { name: 'ls', args: {} }, () => [1]);
      const off = await traceToolCall(h.tracer, { name: 'cat', args: {}, appendWarningNote: false }, () => 'x');
      await traceToolCall(h.tracer, { name: 'cat', args: {}, appendWarningNote: false }, () => 'x');
      const offWarned = await traceToolCall(h.tracer, { name: 'cat', args: {}, appendWarningNote: false }, () => 'x');
      return { shaped, other, array, off, offWarned };
    });
    expect(results.shaped).toEqual({
      ...SAME,
      content: [...SAME.content, { type: 'text', text: toolLoopSystemNote(2) }],
    });
    expect(results.array).toEqual([1]);
    expect(results.offWarned).toBe('x');
  });
});
