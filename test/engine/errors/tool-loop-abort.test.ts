/**
 * `isToolLoopAbort` recognises the run aborts of tool-loop-guard whatever a framework wraps them
 * in: our error classes (and other copies of them, by `code`), `cause` / `reason` chains, and the
 * bare message text a framework keeps of the abort reason (VoltAgent's `AbortError.reason`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  CompactionLoopPersistedError,
  isToolLoopAbort,
  markCompactionRetry,
  ToolLoopBlockedError,
  traceRun,
  traceToolCall,
} from '../../../src/index.js';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';
import { C0 as PROCESSOR_C0, createOtelHarness, resetOtelGlobals } from '../../helpers/otel-harness.js';

afterEach(resetOtelGlobals);

const blocked = () =>
  new ToolLoopBlockedError(
    'CRITICAL: Called read with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.',
    {
      detector: 'generic_repeat',
      count: 20,
      toolName: 'read',
    },
  );

/** What VoltAgent 2.x rejects with once the run's signal aborts: only the reason's message is kept. */
class FrameworkAbortError extends Error {
  override readonly name = 'AbortError';
  constructor(readonly reason: string) {
    super(`Operation aborted: ${reason}`);
  }
}

/** The critical messages the detectors give, from real runs of the engine. */
async function criticalMessages(): Promise<Record<string, string>> {
  const messages: Record<string, string> = {};
  const critical = (h: EngineHarness, tool: string, params: unknown): void => {
    const verdict = h.detect(tool, params);
    expect(verdict?.level).toBe('critical');
    messages[verdict!.detector] = verdict!.message;
  };
  let h = await EngineHarness.create(C0);
  h.completed(20, 'read', { path: '/a' }, () => R('same'));
  critical(h, 'read', { path: '/a' });
  h = await EngineHarness.create(C0);
  h.completed(30, 'read', { path: '/a' }, () => R('same'));
  critical(h, 'read', { path: '/a' });
  h = await EngineHarness.create(C0);
  h.completed(20, 'process', { action: 'poll', sessionId: 's1' }, () => R('running', { status: 'running' }));
  critical(h, 'process', { action: 'poll', sessionId: 's1' });
  h = await EngineHarness.create(C0);
  for (let i = 0; i < 19; i += 1)
    if (i % 2 === 0) h.completed(1, 'read', { path: '/a' }, () => R('read stable'));
    else h.completed(1, 'list', { dir: '/' }, () => R('list stable'));
  critical(h, 'list', { dir: '/' });
  h = await EngineHarness.create(C0);
  h.failed(
    20,
    'exec',
    (i) => ({ shape: i }),
    () => new Error('Tool exec not found'),
  );
  critical(h, 'exec', { command: 'again' });
  return messages;
}

describe('isToolLoopAbort', () => {
  it('recognises our errors, and copies of them by their code', () => {
    expect(isToolLoopAbort(blocked())).toBe(true);
    expect(
      isToolLoopAbort(
        new CompactionLoopPersistedError('loop persisted', {
          detector: 'compaction_loop_persisted',
          count: 3,
          toolName: 'gateway',
        }),
      ),
    ).toBe(true);
    expect(isToolLoopAbort({ name: 'ToolLoopBlockedError', code: 'tool_loop_blocked', message: 'x' })).toBe(true);
    expect(isToolLoopAbort({ code: 'compaction_loop_persisted' })).toBe(true);
  });

  it('sees through cause and reason chains, as frameworks wrap the abort reason', () => {
    expect(isToolLoopAbort(new Error('step failed', { cause: blocked() }))).toBe(true);
    expect(isToolLoopAbort({ name: 'AbortError', reason: blocked() })).toBe(true);
    expect(isToolLoopAbort(new Error('outer', { cause: { reason: new Error('mid', { cause: blocked() }) } }))).toBe(
      true,
    );
    expect(isToolLoopAbort(new FrameworkAbortError(blocked().message))).toBe(true);
  });

  it('recognises the message of every critical verdict, as a string or as the reason a framework kept', async () => {
    const messages = await criticalMessages();
    expect(Object.keys(messages).sort()).toEqual([
      'generic_repeat',
      'global_circuit_breaker',
      'known_poll_no_progress',
      'ping_pong',
      'unknown_tool_repeat',
    ]);
    for (const message of Object.values(messages)) {
      expect(isToolLoopAbort(message), message).toBe(true);
      expect(isToolLoopAbort(new FrameworkAbortError(message)), message).toBe(true);
    }
  });

  it('recognises the post-compaction abort and the critical abort of a real run, wrapped by message only', async () => {
    const h = await createOtelHarness({ config: PROCESSOR_C0, contextManager: true, abortOnCritical: true });
    const compaction = await traceRun(h.tracer, { runId: 'compacted' }, async () => {
      markCompactionRetry(h.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(h.tracer, { name: 'gateway', args: { path: 'x' } }, () => R('same'));
    }).catch((error: unknown) => error);
    expect(compaction).toBeInstanceOf(CompactionLoopPersistedError);
    const looping = await traceRun(h.tracer, { runId: 'looping' }, async () => {
      for (let i = 0; i < 21; i += 1)
        await traceToolCall(h.tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
    }).catch((error: unknown) => error);
    expect(looping).toBeInstanceOf(ToolLoopBlockedError);
    for (const reason of [compaction as Error, looping as Error]) {
      expect(isToolLoopAbort(new FrameworkAbortError(reason.message))).toBe(true);
      expect(isToolLoopAbort(reason.message)).toBe(true);
    }
  });

  it('does not take other errors, warnings or look-alike texts for an abort', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(10, 'read', { path: '/a' }, () => R('same'));
    const warning = h.detect('read', { path: '/a' });
    expect(warning?.level).toBe('warning');
    for (const other of [
      undefined,
      null,
      42,
      '',
      warning!.message,
      'CRITICAL: disk full',
      'Session execution blocked to prevent runaway loops.',
      new Error('CRITICAL: database unreachable'),
      new Error('Operation aborted: CRITICAL: Called read 20 times. Session execution blocked.'),
      { code: 'ECONNRESET', message: 'socket hang up' },
      new DOMException('This operation was aborted', 'AbortError'),
    ])
      expect(isToolLoopAbort(other), JSON.stringify(other) ?? typeof other).toBe(false);
  });

  it('never throws: cycles, throwing getters and chains longer than 8 links are answered false', () => {
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = { reason: cyclic };
    expect(isToolLoopAbort(cyclic)).toBe(false);
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no reading');
        },
        getPrototypeOf: () => {
          throw new Error('no prototype');
        },
      },
    );
    expect(isToolLoopAbort(hostile)).toBe(false);
    expect(
      isToolLoopAbort({
        get cause() {
          throw new Error('no');
        },
        reason: blocked(),
      }),
    ).toBe(true);
    let deep: unknown = blocked();
    for (let i = 0; i < 8; i += 1) deep = { cause: deep };
    expect(isToolLoopAbort(deep)).toBe(true);
    expect(isToolLoopAbort({ cause: deep })).toBe(false);
  });
});
