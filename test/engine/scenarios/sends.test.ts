/** OpenClaw's loop-detection scenarios 41–49 (Sends (#89090)). */
import { describe, expect, it } from 'vitest';
import { blockedToolResult } from '../../../src/engine-entry.js';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const SEND = { action: 'send', target: 'feishu:oc_chat', text: 'ping' };

/** A send payload with fresh delivery ids; the text is its pretty-printed JSON. */
function sendResult(i: number) {
  const payload = {
    ok: true,
    channel: 'feishu',
    chatId: 'oc_chat',
    runId: `run_${i}`,
    messageId: `om_${i}`,
    receipt: { platformMessageId: `p_${i}` },
  };
  return R(JSON.stringify(payload, null, 2), payload);
}

const GENERIC_CRITICAL_20 = (tool: string) =>
  `CRITICAL: Called ${tool} with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops.`;

describe('sends (#89090)', () => {
  it('scenario 41: two message sends differing only in runId/messageId/receipt → equal resultHash', async () => {
    const h = await EngineHarness.create(C0);
    const first = h.resultHash('message', SEND, sendResult(0));
    expect(first).toBeDefined();
    expect(h.resultHash('message', SEND, sendResult(1))).toBe(first);
    // A non-send action with the same payloads hashes in full, so the ids do count there.
    const READ = { action: 'read', target: 'feishu:oc_chat' };
    expect(h.resultHash('message', READ, sendResult(0))).not.toBe(h.resultHash('message', READ, sendResult(1)));
  });

  it('scenario 42: broadcast results differing only in nested messageId/receipt → equal hashes', async () => {
    const h = await EngineHarness.create(C0);
    const params = { action: 'broadcast', text: 'ping' };
    const result = (i: number) => {
      const details = { results: [{ channel: 'feishu', ok: true, result: { messageId: `om_${i}`, receipt: i } }] };
      return R(JSON.stringify(details), details);
    };
    expect(h.resultHash('message', params, result(0))).toBe(h.resultHash('message', params, result(1)));
    const failed = { results: [{ channel: 'feishu', ok: false, result: { messageId: 'om_2', receipt: 2 } }] };
    expect(h.resultHash('message', params, R('', failed))).not.toBe(h.resultHash('message', params, result(0)));
  });

  describe('scenario 43: 20 identical sends → critical', () => {
    const cases: Array<{ name: string; tool: string; params: object; result: (i: number) => object }> = [
      { name: 'message send', tool: 'message', params: SEND, result: sendResult },
      {
        name: 'sessions_send {ok, runId}',
        tool: 'sessions_send',
        params: { sessionKey: 'agent:main', message: 'ping' },
        result: (i) => R(`sent run_${i}`, { ok: true, runId: `run_${i}` }),
      },
      {
        name: 'provider tool telegram{to,text}',
        tool: 'telegram',
        params: { to: '@room', text: 'ping' },
        result: (i) => R(`sent ${i}`, { ok: true, chatId: '@room', messageId: `tg_${i}`, ts: 1_700_000_000 + i }),
      },
      {
        name: 'message reply',
        tool: 'message',
        params: { action: 'reply', target: 'slack:C1', replyTo: 'm-1', text: 'ping' },
        result: (i) => R(`replied ${i}`, { ok: true, messageId: `m_${i}`, sentAt: 1000 + i }),
      },
      {
        name: 'message upload-file (fileId/messageId)',
        tool: 'message',
        params: { action: 'upload-file', target: 'slack:C1', path: '/tmp/report.pdf' },
        result: (i) => R(`uploaded ${i}`, { ok: true, fileId: `F${i}`, messageId: `m_${i}` }),
      },
      {
        name: 'message poll (pollId)',
        tool: 'message',
        params: { action: 'poll', target: 'slack:C1', question: 'lunch?' },
        result: (i) => R(`poll ${i}`, { ok: true, pollId: `P${i}`, messageId: `m_${i}` }),
      },
    ];
    for (const c of cases) {
      it(`scenario 43: ${c.name}`, async () => {
        const h = await EngineHarness.create(C0);
        h.completed(20, c.tool, c.params, c.result);
        expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(1);
        const checked = h.check(c.tool, c.params);
        expect(checked.blocked).toBe(true);
        expect(checked.verdict).toMatchObject({
          level: 'critical',
          detector: 'generic_repeat',
          count: 20,
          message: GENERIC_CRITICAL_20(c.tool),
        });
      });
    }
  });

  it('scenario 44: 20 sends with texts "line i"; check "line final" → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'message', (i) => ({ ...SEND, text: `line ${i}` }), sendResult);
    // Outcomes are identical (text ignored, ids stripped), but every call has new arguments.
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(1);
    expect(h.check('message', { ...SEND, text: 'line final' }).verdict).toBeUndefined();
  });

  it('scenario 45: message read / channel-create differing only in messageId/ts → different hashes', async () => {
    const h = await EngineHarness.create(C0);
    const read = { action: 'read', target: 'slack:C1' };
    const readResult = (i: number) =>
      R('hello', { messages: [{ text: 'hello', messageId: `m_${i}`, ts: `${1000 + i}.0001` }] });
    expect(h.resultHash('message', read, readResult(0))).not.toBe(h.resultHash('message', read, readResult(1)));
    const create = { action: 'channel-create', name: 'ops' };
    const createResult = (i: number) => R('created', { ok: true, messageId: `m_${i}`, timestamp: 1000 + i });
    expect(h.resultHash('message', create, createResult(0))).not.toBe(h.resultHash('message', create, createResult(1)));
  });

  it('scenario 46: send results with different route.id → different hashes (route ids are kept)', async () => {
    const h = await EngineHarness.create(C0);
    const a = h.resultHash('message', SEND, R('sent', { ok: true, messageId: 'om_0', route: { id: 'conv-A' } }));
    const b = h.resultHash('message', SEND, R('sent', { ok: true, messageId: 'om_1', route: { id: 'conv-B' } }));
    const a2 = h.resultHash('message', SEND, R('sent', { ok: true, messageId: 'om_2', route: { id: 'conv-A' } }));
    expect(a).not.toBe(b);
    expect(a2).toBe(a);
  });

  it('scenario 47: sticky block — the loop veto outcome does not reset the streak, it extends it', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'message', SEND, sendResult);
    const first = h.check('message', SEND);
    expect(first.verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });
    const veto = R('blocked', { status: 'blocked', deniedReason: 'tool-loop' });
    // The own veto carries no hash: it is recorded as a veto, never as an outcome of its own.
    expect(h.resultHash('message', SEND, veto)).toBeUndefined();
    expect(h.resultHash('message', SEND, blockedToolResult(first.verdict!.message))).toBeUndefined();
    h.call('message', SEND, { toolCallId: 'veto-1' });
    expect(h.outcome('message', SEND, { result: veto }, { toolCallId: 'veto-1' })).toMatchObject({
      outcomeKind: 'tool-loop-veto',
    });
    const again = h.check('message', SEND);
    expect(again.blocked).toBe(true);
    expect(again.verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 21 });
  });

  it('scenario 48: 20 identical plugin denials of message read → critical (non-loop blocks are hashed)', async () => {
    const h = await EngineHarness.create(C0);
    const params = { action: 'read', target: 'slack:C1' };
    const denied = R('blocked', { status: 'blocked', deniedReason: 'plugin-before-tool-call' });
    expect(h.resultHash('message', params, denied)).toBeDefined();
    h.completed(20, 'message', params, denied);
    expect(h.check('message', params).verdict).toMatchObject({
      level: 'critical',
      detector: 'generic_repeat',
      count: 20,
    });
  });

  it('scenario 49: message-delivery object ids are stripped; conversation ids are kept', async () => {
    const delivery = (i: number, conversationId: string) =>
      R('hello', {
        message: {
          id: `qa_${i}`,
          accountId: 'acc-1',
          direction: 'outbound',
          conversation: { id: conversationId, chatType: 'channel' },
          senderId: 'bot-1',
          text: 'hello',
          timestamp: 1_700_000_000_000 + i,
        },
      });
    const params = { action: 'send', target: 'qa:loop-room', text: 'hello' };

    const h = await EngineHarness.create(C0);
    h.completed(20, 'message', params, (i) => delivery(i, 'loop-room'));
    expect(h.detect('message', params)).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 20 });

    const varying = await EngineHarness.create(C0);
    varying.completed(20, 'message', params, (i) => delivery(i, `loop-room-${i}`));
    const verdict = varying.detect('message', params);
    expect(verdict?.level).not.toBe('critical');
    expect(verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 20 });
  });
});
