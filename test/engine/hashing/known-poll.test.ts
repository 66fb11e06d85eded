import { describe, expect, it } from 'vitest';
import { isKnownPollCall } from '../../../src/engine/hashing/known-poll.js';

describe('isKnownPollCall', () => {
  it('command_status is a poll whatever its params', () => {
    expect(isKnownPollCall('command_status', { id: 'x' })).toBe(true);
    expect(isKnownPollCall('command_status', undefined)).toBe(true);
    expect(isKnownPollCall('command_status', 'text')).toBe(true);
  });

  it('process is a poll only for action poll or log', () => {
    expect(isKnownPollCall('process', { action: 'poll', sessionId: 'sess-1' })).toBe(true);
    expect(isKnownPollCall('process', { action: 'log' })).toBe(true);
    expect(isKnownPollCall('process', { action: 'list' })).toBe(false);
    expect(isKnownPollCall('process', { action: 'POLL' })).toBe(false);
    expect(isKnownPollCall('process', {})).toBe(false);
    expect(isKnownPollCall('process', null)).toBe(false);
    expect(isKnownPollCall('process', ['poll'])).toBe(false);
  });

  it('other tools are never polls', () => {
    expect(isKnownPollCall('exec', { action: 'poll' })).toBe(false);
    expect(isKnownPollCall('read', { path: '/a' })).toBe(false);
  });
});
