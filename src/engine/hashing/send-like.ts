import { isPlainObject } from '../../util/is-record.js';

const SEND_ACTIONS: ReadonlySet<string> = new Set([
  'send',
  'broadcast',
  'reply',
  'thread-reply',
  'sendWithEffect',
  'sendAttachment',
  'upload-file',
  'sticker',
  'poll',
]);

const PROVIDER_SEND_TOOLS: ReadonlySet<string> = new Set([
  'telegram',
  'discord',
  'slack',
  'whatsapp',
  'signal',
  'imessage',
  'feishu',
  'line',
  'matrix',
  'msteams',
  'googlechat',
  'mattermost',
]);

const VOLATILE_KEYS: ReadonlySet<string> = new Set([
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
]);

function hasSendAction(params: Record<string, unknown>): boolean {
  return typeof params.action === 'string' && SEND_ACTIONS.has(params.action);
}

/**
 * True when a call delivers a message, so its outcome is hashed without volatile
 * delivery ids (OpenClaw's rule for sends, OpenClaw issue #89090):
 * - `sessions_send`, whatever its params;
 * - `message` with `params.action` one of `send`, `broadcast`, `reply`, `thread-reply`,
 *   `sendWithEffect`, `sendAttachment`, `upload-file`, `sticker`, `poll`;
 * - a provider-docked tool (`telegram`, `discord`, `slack`, `whatsapp`, `signal`,
 *   `imessage`, `feishu`, `line`, `matrix`, `msteams`, `googlechat`, `mattermost`) whose
 *   params have a string `text`, `message` or `content`, or a send `action` as above.
 *   Upstream's classifier (`isMessagingToolSendAction`) is unverified; this is ours.
 */
export function isSendLikeCall(toolName: string, params: unknown): boolean {
  if (toolName === 'sessions_send') return true;
  if (!isPlainObject(params)) return false;
  if (toolName === 'message') return hasSendAction(params);
  if (!PROVIDER_SEND_TOOLS.has(toolName)) return false;
  return (
    typeof params.text === 'string' ||
    typeof params.message === 'string' ||
    typeof params.content === 'string' ||
    hasSendAction(params)
  );
}

/**
 * An object with string `id` and `text` plus a string `direction`, `senderId` or
 * `accountId`, or a plain-object `conversation`: its `id` is the delivery's own id.
 */
function isMessageDeliveryObject(value: Record<string, unknown>): boolean {
  return (
    typeof value.id === 'string' &&
    typeof value.text === 'string' &&
    (typeof value.direction === 'string' ||
      typeof value.senderId === 'string' ||
      typeof value.accountId === 'string' ||
      isPlainObject(value.conversation))
  );
}

/**
 * Returns a copy of `value` without volatile delivery ids, at any depth (as OpenClaw
 * strips them from sends): the keys `messageId`, `message_id`, `messageIds`, `platformMessageId`,
 * `platformMessageIds`, `fileId`, `file_id`, `fileKey`, `pollId`, `poll_id`, `receipt`,
 * `runId`, `idempotencyKey`, `ts`, `timestamp`, `sentAt`, `deliveredAt`, `createdAt`,
 * and `id` on a message-delivery object (string `id` and `text`, plus a string
 * `direction` / `senderId` / `accountId` or a plain-object `conversation`). Any other
 * `id` (`route.id`, `conversation.id`) is kept.
 *
 * Only arrays and plain objects are copied; other values are shared with the input.
 * The walk is iterative and cycle-safe: a cycle in the input becomes the same cycle in
 * the copy, and a shared reference stays shared.
 */
export function stripVolatileDeliveryIds(value: unknown): unknown {
  const copies = new Map<object, unknown[] | Record<string, unknown>>();
  const pending: Array<[source: object, target: unknown[] | Record<string, unknown>]> = [];

  const copyOf = (v: unknown): unknown => {
    if (!Array.isArray(v) && !isPlainObject(v)) return v;
    const existing = copies.get(v);
    if (existing !== undefined) return existing;
    const target: unknown[] | Record<string, unknown> = Array.isArray(v) ? new Array<unknown>(v.length) : {};
    copies.set(v, target);
    pending.push([v, target]);
    return target;
  };

  const root = copyOf(value);
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [source, target] = item;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) out[i] = copyOf(source[i]);
      continue;
    }
    const record = source as Record<string, unknown>;
    const out = target as Record<string, unknown>;
    const dropId = isMessageDeliveryObject(record);
    for (const key of Object.keys(record)) {
      if (VOLATILE_KEYS.has(key) || (dropId && key === 'id')) continue;
      const copy = copyOf(record[key]);
      // A JSON-parsed own `__proto__` key must stay a key, not become the prototype.
      if (key === '__proto__') {
        Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = copy;
      }
    }
  }
  return root;
}
