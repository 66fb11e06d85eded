import { describe, expect, it } from 'vitest';
import { RequestedCalls, type PendingCall } from '../../src/spans/requested-calls.js';
import type { RequestedCall } from '../../src/spans/span-reading.js';

function pending(toolName: string, toolCallId?: string): PendingCall<string> {
  const requested: RequestedCall = {
    toolName,
    toolCallId,
    call: { toolName, argsHash: `args-of-${toolCallId ?? toolName}`, knownPoll: false },
    outcome: () => ({}),
  };
  return { requested, vetoed: false };
}

const ids = (answered: ReturnType<RequestedCalls<string>['answer']>) =>
  answered.map(({ call, result }) => `${call.requested.toolCallId ?? call.requested.toolName}=${String(result)}`);

describe('RequestedCalls', () => {
  it('matches results to calls by call id, in whatever order they come', () => {
    const calls = new RequestedCalls<string>();
    calls.add(pending('a', 'id-a'));
    calls.add(pending('b', 'id-b'));
    expect(
      ids(
        calls.answer([
          { toolCallId: 'id-b', result: 'B' },
          { toolCallId: 'id-x', result: 'X' },
          { toolCallId: 'id-a', result: 'A' },
        ]),
      ),
    ).toEqual(['id-b=B', 'id-a=A']);
    expect(calls.size).toBe(0);
  });

  it('matches results without ids to the calls without ids in order, and drops those left unanswered', () => {
    const calls = new RequestedCalls<string>();
    calls.add(pending('a'));
    calls.add(pending('b'));
    calls.add(pending('c', 'id-c'));
    expect(ids(calls.answer([{ result: 'first' }]))).toEqual(['a=first']);
    // b's round is over: its result never comes; c keeps waiting for its id.
    expect(calls.size).toBe(1);
    expect(ids(calls.answer([{ toolCallId: 'id-c', result: 'C' }]))).toEqual(['id-c=C']);
  });

  it('a tool span takes over the call with its id, or without ids the oldest call of its tool', () => {
    const calls = new RequestedCalls<string>();
    calls.add(pending('read', 'id-1'));
    calls.add(pending('read', 'id-2'));
    calls.add(pending('write'));
    expect(calls.hasToolSpans('read')).toBe(false);
    expect(calls.claim('read', 'id-2')?.requested.toolCallId).toBe('id-2');
    expect(calls.hasToolSpans('read')).toBe(true);
    expect(calls.claim('read', 'id-9')).toBeUndefined();
    expect(calls.claim('read', undefined)?.requested.toolCallId).toBe('id-1');
    expect(calls.claim('write', 'id-w')?.requested.toolName).toBe('write');
    expect(calls.claim('list', undefined)).toBeUndefined();
    expect(calls.hasToolSpans('list')).toBe(true);
    expect(calls.size).toBe(0);
  });

  it('keeps at most 64 calls waiting: the oldest are forgotten', () => {
    const calls = new RequestedCalls<string>();
    for (let i = 0; i < 70; i += 1) calls.add(pending('read', `id-${i}`));
    expect(calls.size).toBe(64);
    expect(calls.claim('read', 'id-5')).toBeUndefined();
    expect(calls.claim('read', 'id-6')?.requested.toolCallId).toBe('id-6');
  });
});
