/** OpenClaw's loop-detection scenarios 29–34 (Unknown tool). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness } from '../../helpers/engine-harness.js';

const NOT_FOUND = () => new Error('Tool exec not found');
const varyingExec = (i: number) => ({ command: `echo attempt ${i}`, n: i });

describe('unknown tool', () => {
  it('scenario 29: 9 "Tool exec not found" failures; check exec → not stuck', async () => {
    const h = await EngineHarness.create(C0);
    h.failed(9, 'exec', varyingExec, NOT_FOUND);
    expect(h.records().every((r) => r.unknownToolName === 'exec')).toBe(true);
    expect(h.check('exec', { command: 'echo still allowed' }).verdict).toBeUndefined();
  });

  it('scenario 30: 20 failures with 20 arg shapes → critical unknown_tool_repeat, count 20', async () => {
    const h = await EngineHarness.create(C0);
    h.failed(20, 'exec', (i) => ({ [`shape${i}`]: i }), NOT_FOUND);
    const checked = h.check('exec', { command: 'echo still allowed' });
    const message =
      'CRITICAL: attempted unavailable tool exec 20 times. Stop retrying that missing tool and answer without it.';
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'unknown_tool_repeat',
      count: 20,
      message,
      warningKey: 'unknown-tool:exec:exec',
    });
    // The detector writes no log line of its own; only the hook's block line appears.
    expect(h.logger.lines).toEqual([{ level: 'error', message: `Blocking exec due to critical loop: ${message}` }]);
  });

  it('scenario 31: exactly 10 unknown-tool failures → critical, count 10', async () => {
    const h = await EngineHarness.create(C0);
    h.failed(10, 'exec', varyingExec, NOT_FOUND);
    expect(h.detect('exec', { command: 'next' })).toMatchObject({
      level: 'critical',
      detector: 'unknown_tool_repeat',
      count: 10,
      message:
        'CRITICAL: attempted unavailable tool exec 10 times. Stop retrying that missing tool and answer without it.',
    });
  });

  it('scenario 32: 5× "Unknown tool: foo" then 5× "Unknown tool: bar" → not stuck (streak 5)', async () => {
    const h = await EngineHarness.create(C0);
    h.failed(
      5,
      'foo_tool',
      (i) => ({ i }),
      () => new Error('Unknown tool: foo'),
    );
    h.failed(
      5,
      'foo_tool',
      (i) => ({ i: i + 5 }),
      () => new Error('Unknown tool: bar'),
    );
    expect(h.history.view().unknownToolStreak('foo_tool')).toEqual({ count: 5, unknownToolName: 'bar' });
    expect(h.detect('foo_tool', { i: 99 })).toBeUndefined();
    // Five more "bar" failures complete the streak.
    h.failed(
      5,
      'foo_tool',
      (i) => ({ i: i + 10 }),
      () => new Error('Unknown tool: bar'),
    );
    expect(h.detect('foo_tool', { i: 99 })).toMatchObject({
      detector: 'unknown_tool_repeat',
      count: 10,
      warningKey: 'unknown-tool:foo_tool:bar',
      message:
        'CRITICAL: attempted unavailable tool bar 10 times. Stop retrying that missing tool and answer without it.',
    });
  });

  it('scenario 33: all detectors off, 10 unknown-tool failures → critical (not gated)', async () => {
    const h = await EngineHarness.create({
      enabled: true,
      detectors: { genericRepeat: false, knownPollNoProgress: false, pingPong: false },
    });
    h.failed(10, 'exec', varyingExec, NOT_FOUND);
    expect(h.detect('exec', { command: 'x' })).toMatchObject({
      level: 'critical',
      detector: 'unknown_tool_repeat',
      count: 10,
    });
  });

  it('scenario 34: unknown-tool extraction ("Foo.Bar" → "foo.bar", "x", none)', async () => {
    const h = await EngineHarness.create(C0);
    const unknown = (message: string) => h.outcomeHash('exec', {}, { error: new Error(message) }).unknownToolName;
    expect(unknown('unknown tool: Foo.Bar')).toBe('foo.bar');
    expect(unknown("Tool 'x' is not available")).toBe('x');
    expect(unknown('permission denied')).toBeUndefined();
    expect(unknown('Tool exec not found')).toBe('exec');
    expect(unknown('Unknown tool: Foo.Bar')).toBe('foo.bar');
    // An error still yields an `error:` hash whether or not a name was extracted.
    expect(h.outcomeHash('exec', {}, { error: new Error('permission denied') }).resultHash).toMatch(/^error:/);
  });
});
