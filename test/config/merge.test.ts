/** `mergeLoopDetectionConfig`: OpenClaw's per-agent merge. */
import { describe, expect, it } from 'vitest';
import {
  mergeLoopDetectionConfig,
  resolveLoopDetectionConfig,
  type LoopDetectionConfig,
} from '../../src/config/index.js';

describe('mergeLoopDetectionConfig', () => {
  it('neither block → undefined', () => {
    expect(mergeLoopDetectionConfig(undefined, undefined)).toBeUndefined();
  });

  it('global only → the global block as is', () => {
    const global: LoopDetectionConfig = { enabled: true, warningThreshold: 8, detectors: { pingPong: false } };
    expect(mergeLoopDetectionConfig(global, undefined)).toEqual(global);
  });

  it('agent only → the agent block as is', () => {
    const agent: LoopDetectionConfig = { enabled: true, criticalThreshold: 16, postCompactionGuard: { windowSize: 2 } };
    expect(mergeLoopDetectionConfig(undefined, agent)).toEqual(agent);
  });

  it('both → shallow overlay where agent keys win, plus nested detectors and postCompactionGuard', () => {
    const merged = mergeLoopDetectionConfig(
      {
        enabled: true,
        historySize: 40,
        warningThreshold: 8,
        criticalThreshold: 12,
        detectors: { pingPong: false, knownPollNoProgress: false },
        postCompactionGuard: { windowSize: 5 },
      },
      {
        criticalThreshold: 16,
        detectors: { genericRepeat: false, knownPollNoProgress: true },
        postCompactionGuard: { windowSize: 4 },
      },
    );
    expect(merged).toEqual({
      enabled: true,
      historySize: 40,
      warningThreshold: 8,
      criticalThreshold: 16,
      detectors: { pingPong: false, knownPollNoProgress: true, genericRepeat: false },
      postCompactionGuard: { windowSize: 4 },
    });
  });

  it('nested sections present on one side only are kept', () => {
    expect(mergeLoopDetectionConfig({ detectors: { pingPong: false } }, { enabled: true })).toEqual({
      enabled: true,
      detectors: { pingPong: false },
    });
    expect(mergeLoopDetectionConfig({ enabled: true }, { postCompactionGuard: { windowSize: 6 } })).toEqual({
      enabled: true,
      postCompactionGuard: { windowSize: 6 },
    });
  });

  it('does not mutate its inputs', () => {
    const global: LoopDetectionConfig = {
      enabled: true,
      detectors: { pingPong: false },
      postCompactionGuard: { windowSize: 5 },
    };
    const agent: LoopDetectionConfig = { detectors: { genericRepeat: false }, postCompactionGuard: { windowSize: 2 } };
    const before = JSON.stringify([global, agent]);
    mergeLoopDetectionConfig(global, agent);
    expect(JSON.stringify([global, agent])).toBe(before);
  });

  describe('tri-state enabled', () => {
    it('agent false over global true → detectors and the post-compaction guard are off', () => {
      const resolved = resolveLoopDetectionConfig(mergeLoopDetectionConfig({ enabled: true }, { enabled: false }));
      expect(resolved.enabled).toBe(false);
      expect(resolved.postCompactionGuard.enabled).toBe(false);
    });

    it('agent unset over global false → stays off (guard off too)', () => {
      const resolved = resolveLoopDetectionConfig(
        mergeLoopDetectionConfig({ enabled: false }, { warningThreshold: 5 }),
      );
      expect(resolved.enabled).toBe(false);
      expect(resolved.postCompactionGuard.enabled).toBe(false);
      expect(resolved.warningThreshold).toBe(5);
    });

    it('agent true over global false → on', () => {
      const resolved = resolveLoopDetectionConfig(mergeLoopDetectionConfig({ enabled: false }, { enabled: true }));
      expect(resolved.enabled).toBe(true);
      expect(resolved.postCompactionGuard.enabled).toBe(true);
    });

    it('both unset → detectors off, guard on', () => {
      const resolved = resolveLoopDetectionConfig(
        mergeLoopDetectionConfig({ historySize: 20 }, { warningThreshold: 5 }),
      );
      expect(resolved.enabled).toBe(false);
      expect(resolved.postCompactionGuard.enabled).toBe(true);
    });
  });

  it('the merged block is clamped at resolution (merge is not re-validated)', () => {
    // Each block is valid on its own; the merge makes warning ≥ critical.
    const merged = mergeLoopDetectionConfig({ enabled: true, criticalThreshold: 12 }, { warningThreshold: 15 });
    expect(resolveLoopDetectionConfig(merged)).toMatchObject({
      warningThreshold: 15,
      criticalThreshold: 16,
      globalCircuitBreakerThreshold: 30,
    });
  });
});
