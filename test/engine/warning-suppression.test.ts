/**
 * Warning de-duplication is bounded (SECURITY.md: "Warning de-duplication keeps at most 256
 * keys per run"): the 257th key makes the oldest one forgotten, so its next warning in the
 * same bucket is emitted again. Tested on the public `WarningSuppression` class (default cap)
 * and through `LoopRun`, which is what the processor and the CLI keep per run.
 */
import { describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../src/config/index.js';
import {
  createDigester,
  describeToolCall,
  LoopRun,
  type LoopVerdict,
  type ToolCallSignature,
} from '../../src/engine-entry.js';
import { MAX_WARNING_KEYS, WarningSuppression } from '../../src/engine/warning-suppression.js';

const W = 10;

/** A warning verdict for key `key` at `count` (bucket floor(count / W)). */
function warning(key: string, count = W): LoopVerdict {
  return {
    level: 'warning',
    detector: 'generic_repeat',
    count,
    message: `warning ${key}`,
    warningKey: `generic:read:${key}`,
  };
}

/** Emits the first-bucket warning of keys `from` … `to - 1`, each of which must be emitted. */
function fill(suppression: WarningSuppression, from: number, to: number, runId?: string): void {
  for (let i = from; i < to; i += 1) expect(suppression.shouldEmit(warning(`k${i}`), W, runId)).toBe(true);
}

describe('WarningSuppression remembers at most 256 keys', () => {
  it('documents the cap: MAX_WARNING_KEYS is 256', () => {
    expect(MAX_WARNING_KEYS).toBe(256);
  });

  it('with 256 keys none is forgotten: every repeat in the same bucket stays suppressed', () => {
    const suppression = new WarningSuppression();
    fill(suppression, 0, 256);
    for (let i = 0; i < 256; i += 1) expect(suppression.shouldEmit(warning(`k${i}`), W)).toBe(false);
    // A higher bucket still warns (W, 2W, 3W…).
    expect(suppression.shouldEmit(warning('k0', 2 * W), W)).toBe(true);
  });

  it('the 257th key makes the oldest one forgotten (and only that one)', () => {
    const suppression = new WarningSuppression();
    fill(suppression, 0, 257);
    // k1 … k256 are remembered (checked newest first: a suppressed check changes nothing).
    for (let i = 256; i >= 1; i -= 1) expect(suppression.shouldEmit(warning(`k${i}`), W)).toBe(false);
    // k0 was evicted: the same bucket is emitted again.
    expect(suppression.shouldEmit(warning('k0'), W)).toBe(true);
  });

  it('an emitted key becomes the newest: the least recently emitted is forgotten first', () => {
    const suppression = new WarningSuppression();
    fill(suppression, 0, 256);
    expect(suppression.shouldEmit(warning('k0', 2 * W), W)).toBe(true); // k0 re-emitted: now newest
    fill(suppression, 256, 257); // evicts k1, not k0
    expect(suppression.shouldEmit(warning('k0', 2 * W), W)).toBe(false);
    expect(suppression.shouldEmit(warning('k1'), W)).toBe(true);
  });

  it('keys are per run id: the cap counts run-scoped keys, and criticals are never suppressed', () => {
    const suppression = new WarningSuppression();
    fill(suppression, 0, 200, 'run-a');
    fill(suppression, 0, 57, 'run-b'); // 257 keys in all: run-a's k0 is the oldest
    expect(suppression.shouldEmit(warning('k1'), W, 'run-a')).toBe(false);
    expect(suppression.shouldEmit(warning('k0'), W, 'run-a')).toBe(true);
    const critical: LoopVerdict = { ...warning('k5'), level: 'critical' };
    expect(suppression.shouldEmit(critical, W, 'run-b')).toBe(true);
    expect(suppression.shouldEmit(critical, W, 'run-b')).toBe(true);
  });
});

describe('LoopRun applies the same 256-key cap', () => {
  // W 1: one prior identical call makes the next check a first-bucket generic_repeat warning.
  const config = resolveLoopDetectionConfig({
    enabled: true,
    warningThreshold: 1,
    criticalThreshold: 2,
    globalCircuitBreakerThreshold: 3,
    historySize: 1000,
  });

  async function sessionWithWarnings(keys: number) {
    const digester = await createDigester();
    const session = new LoopRun({ config });
    const calls: ToolCallSignature[] = [];
    for (let i = 0; i < keys; i += 1) {
      const call = describeToolCall(digester, 'read', { path: `/file-${i}.txt` });
      calls.push(call);
      session.recordCall(call);
      const check = session.check(call); // not recorded: the count stays 1
      expect(check.verdict).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 1 });
      expect(check.emit).toBe(true);
    }
    return { session, calls };
  }

  it('256 distinct warning keys: the first one is still suppressed', async () => {
    const { session, calls } = await sessionWithWarnings(256);
    expect(session.check(calls[0])).toMatchObject({ verdict: { level: 'warning', count: 1 }, emit: false });
  });

  it('257 distinct warning keys: the first one is forgotten and warns again, the second is not', async () => {
    const { session, calls } = await sessionWithWarnings(257);
    expect(session.check(calls[1])).toMatchObject({ verdict: { level: 'warning', count: 1 }, emit: false });
    expect(session.check(calls[0])).toMatchObject({ verdict: { level: 'warning', count: 1 }, emit: true });
  });
});
