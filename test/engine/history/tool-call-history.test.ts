/**
 * `ToolCallHistory`: OpenClaw's window shared by the runs of a session, each run's records a log
 * of their own, read by the detectors through a run's view. Short and long histories must
 * answer alike.
 */
import { describe, expect, it } from 'vitest';
import { ToolCallHistory } from '../../../src/engine/history/tool-call-history.js';

const call = (toolName: string, n: number) => ({
  toolName,
  argsHash: `${toolName}:${n.toString(16).padStart(16, '0')}`,
});

describe('ToolCallHistory', () => {
  it('keeps at most historySize records, oldest evicted first, in the public record shape', () => {
    let now = 1000;
    const history = new ToolCallHistory({ now: () => (now += 1) });
    for (let i = 0; i < 5; i += 1) history.recordCall({ ...call('read', i), toolCallId: `c${i}` }, 3);
    expect(history.size).toBe(3);
    expect(history.records()).toEqual([
      { ...call('read', 2), toolCallId: 'c2', timestamp: 1003 },
      { ...call('read', 3), toolCallId: 'c3', timestamp: 1004 },
      { ...call('read', 4), toolCallId: 'c4', timestamp: 1005 },
    ]);
  });

  it('an outcome attaches to the newest pending record with its call id, else is appended whole', () => {
    const history = new ToolCallHistory();
    history.recordCall({ ...call('read', 1), toolCallId: 'a' }, 30);
    history.recordCall({ ...call('read', 1), toolCallId: 'b' }, 30);
    expect(history.recordOutcome({ ...call('read', 1), toolCallId: 'a', resultHash: 'r1' }, 30)).toMatchObject({
      toolCallId: 'a',
      resultHash: 'r1',
    });
    expect(history.recordOutcome({ ...call('read', 1), toolCallId: 'zzz', resultHash: 'r2' }, 30)).toMatchObject({
      toolCallId: 'zzz',
      resultHash: 'r2',
    });
    expect(history.records().map((r) => [r.toolCallId, r.resultHash])).toEqual([
      ['a', 'r1'],
      ['b', undefined],
      ['zzz', 'r2'],
    ]);
  });

  it('a pre-computed args hash shared by two tools gives two signatures', () => {
    const history = new ToolCallHistory();
    for (let i = 0; i < 3; i += 1) history.recordCall({ toolName: 'a', argsHash: 'shared' }, 30);
    history.recordCall({ toolName: 'b', argsHash: 'shared' }, 30);
    const view = history.view();
    expect(view.recentCount('shared', 'a')).toBe(3);
    expect(view.recentCount('shared', 'b')).toBe(1);
    expect(history.records().map((r) => r.toolName)).toEqual(['a', 'a', 'a', 'b']);
  });

  it('short (below 48 records) and long (from 48) histories give the same streaks and counts', () => {
    const answers = (records: number) => {
      const history = new ToolCallHistory();
      for (let i = 0; i < records; i += 1) {
        const c = call('read', i % 3);
        history.recordCall(c, 1000);
        history.recordOutcome({ ...c, resultHash: i % 3 === 0 ? 'same' : `r${i}` }, 1000);
      }
      const view = history.view();
      return [0, 1, 2].map((n) => [
        view.recentCount(call('read', n).argsHash, 'read'),
        view.noProgressStreak(call('read', n).argsHash, 'read').count,
      ]);
    };
    // 30 records: 10 of each signature; 90 records: 30 of each (indexed). Signature 0 always returns 'same'.
    expect(answers(30)).toEqual([
      [10, 10],
      [10, 1],
      [10, 1],
    ]);
    expect(answers(90)).toEqual([
      [30, 30],
      [30, 1],
      [30, 1],
    ]);
  });

  it('timestamps stay exact when they are far apart (beyond the compact offset range)', () => {
    const times = [1, 2 ** 40, 2 ** 40 + 0.5];
    let i = 0;
    const history = new ToolCallHistory({ now: () => times[i++] });
    for (let n = 0; n < 3; n += 1) history.recordCall(call('read', n), 30);
    expect(history.records().map((r) => r.timestamp)).toEqual(times);
  });

  it('views are per run: blank run ids are the records without a run id, and ids are trimmed', () => {
    const history = new ToolCallHistory();
    history.recordCall({ ...call('read', 1), runId: ' r1 ' }, 30);
    history.recordCall({ ...call('read', 1), runId: '' }, 30);
    expect(history.view('r1').recentCount(call('read', 1).argsHash, 'read')).toBe(1);
    expect(history.view().recentCount(call('read', 1).argsHash, 'read')).toBe(1);
    expect(history.view('r2').recentCount(call('read', 1).argsHash, 'read')).toBe(0);
    expect(history.records().map((r) => r.runId)).toEqual(['r1', undefined]);
  });

  it('pingPong sees an alternation of two signatures and its no-progress evidence', () => {
    const history = new ToolCallHistory();
    for (let i = 0; i < 4; i += 1) {
      const c = call(i % 2 === 0 ? 'read' : 'list', 0);
      history.recordCall(c, 30);
      history.recordOutcome({ ...c, resultHash: i % 2 === 0 ? 'R' : 'L' }, 30);
    }
    const view = history.view();
    const candidate = view.pingPong(call('read', 0).argsHash);
    expect(candidate).toEqual({ count: 5, pairedToolName: 'list', pairedSignature: call('list', 0).argsHash });
    expect(view.pingPongNoProgressEvidence(candidate)).toBe(true);
    expect(view.pingPong(call('list', 0).argsHash).count).toBe(0);
  });

  it('unknownToolStreak counts the newest records of a tool naming one unavailable tool', () => {
    const history = new ToolCallHistory();
    for (let i = 0; i < 3; i += 1)
      history.recordOutcome({ ...call('exec', i), resultHash: `error:${i}`, unknownToolName: 'ghost' }, 30);
    expect(history.view().unknownToolStreak('exec')).toEqual({ count: 3, unknownToolName: 'ghost' });
    history.recordOutcome({ ...call('exec', 9), resultHash: 'fine' }, 30);
    expect(history.view().unknownToolStreak('exec')).toEqual({ count: 0 });
  });
});
