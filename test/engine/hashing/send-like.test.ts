import { describe, expect, it } from 'vitest';
import { isSendLikeCall, stripVolatileDeliveryIds } from '../../../src/engine/hashing/send-like.js';

describe('isSendLikeCall', () => {
  it('sessions_send is always send-like', () => {
    expect(isSendLikeCall('sessions_send', { sessionKey: 'k', message: 'hi' })).toBe(true);
    expect(isSendLikeCall('sessions_send', undefined)).toBe(true);
  });

  it('message is send-like only for the send actions', () => {
    for (const action of [
      'send',
      'broadcast',
      'reply',
      'thread-reply',
      'sendWithEffect',
      'sendAttachment',
      'upload-file',
      'sticker',
      'poll',
    ]) {
      expect(isSendLikeCall('message', { action })).toBe(true);
    }
    for (const action of ['read', 'channel-create', 'react', 'Send', undefined]) {
      expect(isSendLikeCall('message', { action })).toBe(false);
    }
    expect(isSendLikeCall('message', 'send')).toBe(false);
  });

  it('provider-docked tools are send-like with text/message/content or a send action', () => {
    expect(isSendLikeCall('telegram', { to: '123', text: 'ping' })).toBe(true);
    expect(isSendLikeCall('discord', { message: 'ping' })).toBe(true);
    expect(isSendLikeCall('slack', { content: 'ping' })).toBe(true);
    expect(isSendLikeCall('feishu', { action: 'reply' })).toBe(true);
    expect(isSendLikeCall('telegram', { action: 'getChat', chatId: 1 })).toBe(false);
    expect(isSendLikeCall('telegram', { text: 5 })).toBe(false);
    expect(isSendLikeCall('read', { text: 'ping' })).toBe(false);
  });
});

describe('stripVolatileDeliveryIds', () => {
  it('drops the volatile keys at any depth', () => {
    const keys = [
      'messageId',
      'message_id',
      'messageIds',
      'platformMessageId',
      'platformMessageIds',
      'fileId',
      'file_id',
      'fileKey',
      'pollId',
      'poll_id',
      'receipt',
      'runId',
      'idempotencyKey',
      'ts',
      'timestamp',
      'sentAt',
      'deliveredAt',
      'createdAt',
    ];
    const volatile = Object.fromEntries(keys.map((k) => [k, 'v']));
    expect(stripVolatileDeliveryIds({ ok: true, ...volatile, nested: [{ keep: 1, ...volatile }] })).toEqual({
      ok: true,
      nested: [{ keep: 1 }],
    });
  });

  it('drops id only on message-delivery objects', () => {
    const base = { id: 'qa_1', text: 'hello' };
    expect(stripVolatileDeliveryIds({ ...base, direction: 'outbound' })).toEqual({
      text: 'hello',
      direction: 'outbound',
    });
    expect(stripVolatileDeliveryIds({ ...base, senderId: 's' })).toEqual({ text: 'hello', senderId: 's' });
    expect(stripVolatileDeliveryIds({ ...base, accountId: 'a' })).toEqual({ text: 'hello', accountId: 'a' });
    expect(stripVolatileDeliveryIds({ ...base, conversation: { id: 'room' } })).toEqual({
      text: 'hello',
      conversation: { id: 'room' },
    });
    expect(stripVolatileDeliveryIds(base)).toEqual(base);
    expect(stripVolatileDeliveryIds({ id: 1, text: 'x', direction: 'in' })).toEqual({
      id: 1,
      text: 'x',
      direction: 'in',
    });
    expect(stripVolatileDeliveryIds({ ok: true, route: { id: 'conv-A' } })).toEqual({
      ok: true,
      route: { id: 'conv-A' },
    });
  });

  it('does not mutate the input and passes non-containers through', () => {
    const input = { messageId: 'm', inner: { ts: 1, keep: 2 } };
    stripVolatileDeliveryIds(input);
    expect(input).toEqual({ messageId: 'm', inner: { ts: 1, keep: 2 } });
    expect(stripVolatileDeliveryIds('text')).toBe('text');
    expect(stripVolatileDeliveryIds(null)).toBe(null);
    const date = new Date(0);
    expect((stripVolatileDeliveryIds({ date }) as { date: Date }).date).toBe(date);
  });

  it('is cycle-safe and keeps a JSON-parsed __proto__ key as a key', () => {
    const a: Record<string, unknown> = { messageId: 'x', keep: 1 };
    a.self = a;
    const out = stripVolatileDeliveryIds(a) as Record<string, unknown>;
    expect(out.keep).toBe(1);
    expect(out.self).toBe(out);
    expect('messageId' in out).toBe(false);
    const parsed = JSON.parse('{"__proto__":{"messageId":"m","x":1}}') as unknown;
    const stripped = stripVolatileDeliveryIds(parsed) as Record<string, unknown>;
    expect(Object.keys(stripped)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
  });

  it('handles 10 000-deep nesting', () => {
    let deep: unknown = { ts: 1, v: 'leaf' };
    for (let i = 0; i < 10_000; i++) deep = { receipt: i, child: deep };
    let out = stripVolatileDeliveryIds(deep) as Record<string, unknown>;
    for (let i = 0; i < 10_000; i++) out = out.child as Record<string, unknown>;
    expect(out).toEqual({ v: 'leaf' });
  });
});
