import { beforeAll, describe, expect, it } from 'vitest';
import { sketchText, textEvidence } from '../../../src/engine/hashing/result-sketch.js';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';
import {
  blockedToolResult,
  hashToolOutcome,
  isOpenClawShapedResult,
  type ToolOutcome,
} from '../../../src/engine/hashing/outcome-hash.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const R = (text: string, details: unknown) => ({ content: [{ type: 'text', text }], details });
const hash = (outcome: ToolOutcome) => hashToolOutcome(digester, outcome).resultHash;

describe('blockedToolResult', () => {
  it("builds OpenClaw's veto shape", () => {
    expect(blockedToolResult('CRITICAL: stop')).toEqual({
      content: [{ type: 'text', text: 'CRITICAL: stop' }],
      details: { status: 'blocked', deniedReason: 'tool-loop', reason: 'CRITICAL: stop' },
    });
  });
});

describe('isOpenClawShapedResult', () => {
  it('needs a plain object with a content array and/or a details object', () => {
    expect(isOpenClawShapedResult(R('x', {}))).toBe(true);
    expect(isOpenClawShapedResult({ content: [] })).toBe(true);
    expect(isOpenClawShapedResult({ details: { ok: true } })).toBe(true);
    expect(isOpenClawShapedResult({ job: 1, progress: 0.5 })).toBe(false);
    expect(isOpenClawShapedResult({ content: 'text', details: 'x' })).toBe(false);
    expect(isOpenClawShapedResult([R('x', {})])).toBe(false);
    expect(isOpenClawShapedResult('text')).toBe(false);
    expect(isOpenClawShapedResult(null)).toBe(false);
  });
});

describe('hashToolOutcome: errors (rule 1)', () => {
  it('hashes "error:" + the digest of the error text and extracts the unknown tool', () => {
    expect(hashToolOutcome(digester, { toolName: 'exec', error: new Error('Tool exec not found') })).toEqual({
      resultHash: `error:${digester.digestText('Tool exec not found')}`,
      unknownToolName: 'exec',
      similarity: expect.any(Function) as unknown,
    });
    expect(hashToolOutcome(digester, { toolName: 'x', error: 'permission denied' })).toEqual({
      resultHash: `error:${digester.digestText('permission denied')}`,
      similarity: expect.any(Function) as unknown,
    });
  });

  it('derives the error text per type', () => {
    const named = new RangeError('');
    expect(hash({ toolName: 't', error: named })).toBe(`error:${digester.digestText('RangeError')}`);
    expect(hash({ toolName: 't', error: 42 })).toBe(`error:${digester.digestText('42')}`);
    expect(hash({ toolName: 't', error: false })).toBe(`error:${digester.digestText('false')}`);
    expect(hash({ toolName: 't', error: 7n })).toBe(`error:${digester.digestText('7')}`);
    expect(hash({ toolName: 't', error: { code: 'E', msg: 'm' } })).toBe(
      `error:${digester.digestText('{"code":"E","msg":"m"}')}`,
    );
    expect(hash({ toolName: 't', error: new Error('same') })).toBe(hash({ toolName: 't', error: 'same' }));
  });

  it('honours isError: a thrown undefined is an error; isError false ignores error', () => {
    expect(hash({ toolName: 't', isError: true })).toBe(`error:${digester.digestText('undefined')}`);
    expect(hash({ toolName: 't', isError: false, error: 'x', result: 'ok' })).toBe(digester.digest('ok'));
    expect(hash({ toolName: 't', error: 'boom', result: 'ignored' })).toBe(`error:${digester.digestText('boom')}`);
  });
});

describe('hashToolOutcome: whole values (rule 2)', () => {
  it('an undefined result gives no hash', () => {
    expect(hashToolOutcome(digester, { toolName: 'read' })).toEqual({});
    expect(hashToolOutcome(digester, { toolName: 'read', result: undefined })).toEqual({});
  });

  it('non-OpenClaw-shaped values are digested whole', () => {
    expect(hash({ toolName: 'read', result: 'file text' })).toBe(digester.digest('file text'));
    expect(hash({ toolName: 'read', result: null })).toBe(digester.digest(null));
    expect(hash({ toolName: 'read', result: [1, 2] })).toBe(digester.digest([1, 2]));
    const a = hash({ toolName: 'job', result: { job: 'j1', progress: 0.1 } });
    const b = hash({ toolName: 'job', result: { job: 'j1', progress: 0.2 } });
    expect(a).toBe(digester.digest({ job: 'j1', progress: 0.1 }));
    expect(a).not.toBe(b);
  });
});

describe('hashToolOutcome: default projection (rules 3 and 8)', () => {
  it('hashes {details, text} with text from typed text entries joined and trimmed', () => {
    const result = {
      content: [
        { type: 'text', text: '  a' },
        { type: 'image', data: 'xx' },
        { text: 'untyped' },
        'str',
        { type: 'text', text: 'b  ' },
      ],
      details: { ok: true },
      other: 'ignored',
    };
    expect(hash({ toolName: 'read', result })).toBe(digester.digest({ details: { ok: true }, text: 'a\nb' }));
    expect(hash({ toolName: 'read', result: { content: [] } })).toBe(digester.digest({ details: {}, text: '' }));
    expect(hash({ toolName: 'read', result: { content: [], details: [1] } })).toBe(
      digester.digest({ details: {}, text: '' }),
    );
  });

  it('update_plan: details become the plan shape and text is empty', () => {
    const params = (explanation: string, status: string) => ({
      explanation,
      plan: [{ step: `step ${explanation}`, status }],
    });
    const first = hash({
      toolName: 'update_plan',
      params: params('a', 'pending'),
      result: R('Plan updated v1', { plan: 1 }),
    });
    const reworded = hash({
      toolName: 'update_plan',
      params: params('b', 'pending'),
      result: R('Plan updated v2', { plan: 2 }),
    });
    const progressed = hash({
      toolName: 'update_plan',
      params: params('a', 'completed'),
      result: R('Plan updated v1', { plan: 1 }),
    });
    expect(reworded).toBe(first);
    expect(progressed).not.toBe(first);
  });
});

describe('hashToolOutcome: loop veto (rule 4)', () => {
  it('scenario 47: the own veto gives no hash, only the veto kind', () => {
    expect(
      hashToolOutcome(digester, {
        toolName: 'message',
        params: { action: 'send' },
        result: R('blocked', { status: 'blocked', deniedReason: 'tool-loop' }),
      }),
    ).toEqual({ outcomeKind: 'tool-loop-veto' });
    expect(hashToolOutcome(digester, { toolName: 'read', result: blockedToolResult('CRITICAL: x') })).toEqual({
      outcomeKind: 'tool-loop-veto',
    });
  });

  it('scenario 48: a plugin-blocked result is hashed, identically each time', () => {
    const outcome = {
      toolName: 'message',
      params: { action: 'read' },
      result: R('blocked', { status: 'blocked', deniedReason: 'plugin-before-tool-call' }),
    };
    expect(hash(outcome)).toMatch(/^[0-9a-f]{16}$/);
    expect(hash(outcome)).toBe(hash({ ...outcome }));
  });
});

describe('hashToolOutcome: exec (rule 5)', () => {
  const exec = (text: string, details: unknown) =>
    hash({ toolName: 'exec', params: { command: 'c' }, result: R(text, details) });

  it('scenario 35: completed results differing in durationMs/cwd hash equally', () => {
    const at = (i: number) =>
      exec('Loki\nPrometheus', {
        status: 'completed',
        exitCode: 0,
        durationMs: 100 + i,
        cwd: `/tmp/run-${i}`,
        aggregated: 'Loki\nPrometheus',
      });
    expect(at(1)).toBe(at(2));
    expect(at(1)).toBe(
      digester.digest({ status: 'completed', exitCode: 0, timedOut: false, output: 'Loki\nPrometheus' }),
    );
  });

  it('scenario 36: running results keep only status and tail', () => {
    const at = (i: number) =>
      exec(`Command still running (session sess-${i}, pid ${1000 + i})`, {
        status: 'running',
        sessionId: `sess-${i}`,
        pid: 1000 + i,
        startedAt: i,
        cwd: `/c${i}`,
        tail: '(no new output)',
      });
    expect(at(1)).toBe(at(2));
    expect(at(1)).toBe(digester.digest({ status: 'running', tail: '(no new output)' }));
    expect(exec('x', { status: 'running' })).toBe(digester.digest({ status: 'running', tail: '' }));
  });

  it('scenario 37: empty aggregated falls back to the changing text', () => {
    const at = (i: number) =>
      exec(`Runtime failed before spawn: attempt ${i}`, {
        status: 'failed',
        exitCode: null,
        durationMs: i,
        aggregated: '',
      });
    expect(at(1)).not.toBe(at(2));
    expect(exec('same', { status: 'failed', exitCode: 'x', aggregated: '   ' })).toBe(
      digester.digest({ status: 'failed', exitCode: null, timedOut: false, output: 'same' }),
    );
  });

  it('scenario 11: completed outputs that change hash differently', () => {
    const at = (i: number) =>
      exec(`tick ${i}`, { status: 'completed', exitCode: 0, durationMs: 100 + i, aggregated: `tick ${i}` });
    expect(at(1)).not.toBe(at(2));
  });

  it('scenario 38: timedOut true differs from timedOut absent', () => {
    expect(exec('', { status: 'failed', exitCode: 1, timedOut: true, aggregated: 'x' })).not.toBe(
      exec('', { status: 'failed', exitCode: 1, aggregated: 'x' }),
    );
    expect(exec('', { status: 'failed', exitCode: 1, timedOut: 'yes', aggregated: 'x' })).toBe(
      exec('', { status: 'failed', exitCode: 1, aggregated: 'x' }),
    );
  });

  it('scenario 39: approval results ignore the request id', () => {
    const at = (requestId: string) =>
      exec('t', { status: 'approval-pending', reason: 'r', host: 'h', command: 'c', warningText: 'w', requestId });
    expect(at('req-1')).toBe(at('req-2'));
    expect(exec('t', { status: 'approval-unavailable' })).toBe(
      digester.digest({ status: 'approval-unavailable', reason: null, host: null, command: '', warningText: '' }),
    );
  });

  it('scenario 40: details without a string status use the default projection', () => {
    expect(exec('out', { durationMs: 1 })).not.toBe(exec('out', { durationMs: 2 }));
    expect(exec('out', { status: 'weird', durationMs: 1 })).toBe(
      digester.digest({ details: { status: 'weird', durationMs: 1 }, text: 'out' }),
    );
  });
});

describe('hashToolOutcome: process (rule 6)', () => {
  it('poll hashes {action, status, exitCode, exitSignal, aggregated, text}', () => {
    const poll = (details: unknown) =>
      hash({
        toolName: 'process',
        params: { action: 'poll', sessionId: 'sess-1' },
        result: R('(no new output)\n\nProcess still running.', details),
      });
    expect(poll({ status: 'running', aggregated: 'steady', pid: 1 })).toBe(
      poll({ status: 'running', aggregated: 'steady', pid: 2 }),
    );
    expect(poll({ status: 'running', aggregated: 'steady' })).toBe(
      digester.digest({
        action: 'poll',
        status: 'running',
        exitCode: null,
        exitSignal: null,
        aggregated: 'steady',
        text: '(no new output)\n\nProcess still running.',
      }),
    );
    expect(poll({})).toBe(
      digester.digest({
        action: 'poll',
        status: undefined,
        exitCode: null,
        exitSignal: null,
        aggregated: null,
        text: '(no new output)\n\nProcess still running.',
      }),
    );
  });

  it('log hashes {action, status, totalLines, totalChars, truncated, exitCode, exitSignal, text}', () => {
    const log = hash({
      toolName: 'process',
      params: { action: 'log' },
      result: R('lines', { status: 'exited', totalLines: 3, offset: 9 }),
    });
    expect(log).toBe(
      digester.digest({
        action: 'log',
        status: 'exited',
        totalLines: 3,
        totalChars: null,
        truncated: null,
        exitCode: null,
        exitSignal: null,
        text: 'lines',
      }),
    );
  });

  it('other process actions use the default projection', () => {
    expect(hash({ toolName: 'process', params: { action: 'list' }, result: R('t', { a: 1 }) })).toBe(
      digester.digest({ details: { a: 1 }, text: 't' }),
    );
  });
});

describe('hashToolOutcome: send-like (rule 7, #89090)', () => {
  it('scenario 41: message send payloads differing only in delivery ids hash equally', () => {
    const payload = (i: number) => ({
      ok: true,
      channel: 'feishu',
      chatId: 'oc_chat',
      runId: `run_${i}`,
      messageId: `om_${i}`,
      receipt: { platformMessageId: `p_${i}` },
    });
    const at = (i: number) =>
      hash({
        toolName: 'message',
        params: { action: 'send', target: 'feishu:oc_chat', text: 'ping' },
        result: R(JSON.stringify(payload(i), null, 2), payload(i)),
      });
    expect(at(1)).toBe(at(2));
    expect(at(1)).toBe(digester.digest({ ok: true, channel: 'feishu', chatId: 'oc_chat' }));
  });

  it('scenario 42: broadcast results with nested ids hash equally', () => {
    const at = (i: number) =>
      hash({
        toolName: 'message',
        params: { action: 'broadcast', text: 'ping' },
        result: R(`sent ${i}`, {
          results: [{ channel: 'slack', ok: true, result: { messageId: `om_${i}`, receipt: i } }],
        }),
      });
    expect(at(1)).toBe(at(2));
  });

  it('scenario 43: sessions_send, provider tools, reply, upload-file and poll strip their ids', () => {
    const pairs: Array<[string, unknown, (i: number) => unknown]> = [
      ['sessions_send', { sessionKey: 'k', message: 'hi' }, (i) => ({ ok: true, runId: `run_${i}` })],
      ['telegram', { to: '42', text: 'hi' }, (i) => ({ ok: true, messageId: i, chatId: 42 })],
      ['message', { action: 'reply', text: 'hi' }, (i) => ({ ok: true, messageId: `m${i}`, ts: i })],
      ['message', { action: 'upload-file', path: '/f' }, (i) => ({ ok: true, fileId: `f${i}`, messageId: `m${i}` })],
      ['message', { action: 'poll', question: 'q' }, (i) => ({ ok: true, pollId: `p${i}` })],
    ];
    for (const [toolName, params, details] of pairs) {
      expect(hash({ toolName, params, result: R('x', details(1)) })).toBe(
        hash({ toolName, params, result: R('x', details(2)) }),
      );
    }
  });

  it('scenario 44: send text is ignored, so differing texts do not make progress by themselves', () => {
    const at = (text: string) =>
      hash({
        toolName: 'message',
        params: { action: 'send', text },
        result: R(`sent: ${text}`, { ok: true, messageId: text }),
      });
    expect(at('line 1')).toBe(at('line 2'));
  });

  it('scenario 45: read and channel-create keep full hashing', () => {
    const read = (i: number) =>
      hash({
        toolName: 'message',
        params: { action: 'read' },
        result: R('msgs', { messages: [{ text: 'a' }], messageId: `m${i}`, ts: i }),
      });
    expect(read(1)).not.toBe(read(2));
    const create = (i: number) =>
      hash({
        toolName: 'message',
        params: { action: 'channel-create' },
        result: R('ok', { ok: true, messageId: `m${i}`, timestamp: i }),
      });
    expect(create(1)).not.toBe(create(2));
  });

  it('scenario 46: route ids are kept', () => {
    const at = (i: number, conv: string) =>
      hash({
        toolName: 'message',
        params: { action: 'send', text: 'x' },
        result: R('x', { ok: true, messageId: `om_${i}`, route: { id: conv } }),
      });
    expect(at(0, 'conv-A')).not.toBe(at(1, 'conv-B'));
    expect(at(0, 'conv-A')).toBe(at(1, 'conv-A'));
  });

  it('scenario 49: message-delivery ids are dropped, conversation ids are kept', () => {
    const at = (i: number, room: string) =>
      hash({
        toolName: 'message',
        params: { action: 'send', text: 'hello' },
        result: R('hello', {
          message: {
            id: `qa_${i}`,
            accountId: 'acc',
            direction: 'outbound',
            conversation: { id: room, chatType: 'channel' },
            senderId: 'bot',
            text: 'hello',
            timestamp: 1000 + i,
          },
        }),
      });
    expect(at(1, 'loop-room')).toBe(at(2, 'loop-room'));
    expect(at(1, 'loop-room-1')).not.toBe(at(2, 'loop-room-2'));
  });
});

describe('hashToolOutcome: near-duplicate evidence', () => {
  it('sketches the text, computed once; similarity: false skips it', () => {
    const result = { content: [{ type: 'text', text: 'queued at 12:00' }], details: { state: 'queued', at: 3 } };
    const hashed = hashToolOutcome(digester, { toolName: 'job', result });
    const evidence = hashed.similarity!();
    expect(evidence.resultSketch).toBe(sketchText('queued at 12:00'));
    expect(evidence.resultShape).toBe(textEvidence('queued at 99:99')!.shape);
    expect(hashed.similarity!()).toBe(evidence);
    const plain = hashToolOutcome(digester, { toolName: 'job', result }, { similarity: false });
    expect(plain).toEqual({ resultHash: hashed.resultHash });
  });

  it('a structure without text is compared by its canonical form: results that differ in numbers only share a shape', () => {
    const shape = (result: unknown) => hashToolOutcome(digester, { toolName: 'job', result }).similarity!().resultShape;
    expect(shape({ state: 'queued', position: 3 })).toBeDefined();
    expect(shape({ state: 'queued', position: 3 })).toBe(shape({ state: 'queued', position: 14 }));
    expect(shape({ state: 'queued', position: 3 })).not.toBe(shape({ state: 'running', position: 3 }));
  });

  it('an error is explained when its message has at least 32 characters, not a bare status', () => {
    const failed = (error: string) => hashToolOutcome(digester, { toolName: 'search', error });
    expect(failed('The search API calls seem not valid. Please check the arguments.').explainedFailure).toBe(true);
    expect(failed('Permission denied').explainedFailure).toBeUndefined();
    expect(failed(`  exit status 1${' '.repeat(40)}`).explainedFailure).toBeUndefined();
    expect(hashToolOutcome(digester, { toolName: 'search', result: 'x'.repeat(64) }).explainedFailure).toBeUndefined();
  });

  it('a result with a throwing getter is hashed and sketched without throwing', () => {
    const hostile = { content: [{ type: 'text', text: 'x' }], details: {} as Record<string, unknown> };
    Object.defineProperty(hostile.details, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    const hashed = hashToolOutcome(digester, { toolName: 'job', result: { ok: 1, nested: hostile.details } });
    expect(hashed.resultHash).toBeDefined();
    expect(hashed.similarity!().resultShape).toBeDefined();
  });
});
