/** OpenClaw's loop-detection scenarios 59–65 (Config clamping and merge). */
import { describe, expect, it } from 'vitest';
import {
  AgentConfigResolver,
  mergeLoopDetectionConfig,
  resolveLoopDetectionConfig,
  validateLoopDetectionConfig,
  validateToolLoopGuardConfig,
} from '../../../src/config/index.js';
import { EngineHarness, R, RecordingLogger } from '../../helpers/engine-harness.js';

const SAME = { path: '/same' };
const SAME_RESULT = R('same', { ok: true });

describe('config clamping and merge', () => {
  it('scenario 59: warningThreshold 25 → C 26, B 30; 25 identical → warning 25, 26 → critical generic_repeat 26', async () => {
    const h = await EngineHarness.create({ enabled: true, warningThreshold: 25 });
    expect(h.config).toMatchObject({ warningThreshold: 25, criticalThreshold: 26, globalCircuitBreakerThreshold: 30 });
    expect(h.configLogger.at('warn').some((line) => line.includes('criticalThreshold'))).toBe(true);
    h.completed(25, 'read', SAME, SAME_RESULT);
    expect(h.detect('read', SAME)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 25 });
    h.completed(1, 'read', SAME, SAME_RESULT);
    expect(h.detect('read', SAME)).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 26 });
  });

  it('scenario 60: warningThreshold 5 = criticalThreshold 5 → C 6, B 30 (runtime clamp)', () => {
    const logger = new RecordingLogger();
    const config = resolveLoopDetectionConfig({ enabled: true, warningThreshold: 5, criticalThreshold: 5 }, { logger });
    expect(config).toMatchObject({ warningThreshold: 5, criticalThreshold: 6, globalCircuitBreakerThreshold: 30 });
    expect(logger.at('warn')).toHaveLength(1);
    expect(logger.at('warn')[0]).toContain('tools.loopDetection.criticalThreshold');
    // Schema validation flags the pair (see scenario 63).
    expect(validateLoopDetectionConfig({ warningThreshold: 5, criticalThreshold: 5 }).map((i) => i.path)).toEqual([
      'tools.loopDetection.criticalThreshold',
    ]);
  });

  it('scenario 61: criticalThreshold 30 → B 31; 30 identical → critical generic_repeat, not the breaker', async () => {
    const h = await EngineHarness.create({ enabled: true, criticalThreshold: 30 });
    expect(h.config).toMatchObject({ warningThreshold: 10, criticalThreshold: 30, globalCircuitBreakerThreshold: 31 });
    expect(h.configLogger.at('warn').some((line) => line.includes('globalCircuitBreakerThreshold'))).toBe(true);
    h.completed(30, 'read', SAME, SAME_RESULT);
    const verdict = h.detect('read', SAME);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'generic_repeat', count: 30 });
  });

  it.each([0, -1, 2.5, '5'])('scenario 62: warningThreshold %j → the default 10 is used, with a warning', (value) => {
    const logger = new RecordingLogger();
    const config = resolveLoopDetectionConfig({ enabled: true, warningThreshold: value as number }, { logger });
    expect(config.warningThreshold).toBe(10);
    expect(config.criticalThreshold).toBe(20);
    const warnings = logger.at('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tools.loopDetection.warningThreshold');
  });

  describe('scenario 63: schema validation', () => {
    // Deliberate difference: OpenClaw's zod schema rejects these configs. Ours reports the
    // pairwise rules as warning-severity issues at the spec's paths with the spec's message,
    // and unknown keys as warnings (a newer config must not break an older processor); the
    // runtime then clamps (scenarios 59–61).
    it('scenario 63: warningThreshold 10 = criticalThreshold 10 → issue at criticalThreshold', () => {
      const issues = validateLoopDetectionConfig({ warningThreshold: 10, criticalThreshold: 10 });
      expect(issues).toEqual([
        {
          path: 'tools.loopDetection.criticalThreshold',
          message: 'tools.loopDetection.warningThreshold must be lower than criticalThreshold.',
          severity: 'warning',
        },
      ]);
      expect(validateLoopDetectionConfig({ warningThreshold: 9, criticalThreshold: 10 })).toEqual([]);
      expect(resolveLoopDetectionConfig({ warningThreshold: 10, criticalThreshold: 10 }).criticalThreshold).toBe(11);
    });

    it('scenario 63: criticalThreshold 30 = globalCircuitBreakerThreshold 30 → issue at globalCircuitBreakerThreshold', () => {
      const issues = validateLoopDetectionConfig({ criticalThreshold: 30, globalCircuitBreakerThreshold: 30 });
      expect(issues).toEqual([
        {
          path: 'tools.loopDetection.globalCircuitBreakerThreshold',
          message: 'tools.loopDetection.criticalThreshold must be lower than globalCircuitBreakerThreshold.',
          severity: 'warning',
        },
      ]);
      expect(validateLoopDetectionConfig({ criticalThreshold: 29, globalCircuitBreakerThreshold: 30 })).toEqual([]);
      expect(
        resolveLoopDetectionConfig({ criticalThreshold: 30, globalCircuitBreakerThreshold: 30 })
          .globalCircuitBreakerThreshold,
      ).toBe(31);
    });

    it('scenario 63: an unknown key → a warning, not a rejection', () => {
      const issues = validateToolLoopGuardConfig({ tools: { loopDetection: { enabled: true, turnLimit: 5 } } });
      expect(issues).toEqual([
        { path: 'tools.loopDetection.turnLimit', message: expect.any(String) as string, severity: 'warning' },
      ]);
      expect(resolveLoopDetectionConfig({ enabled: true, turnLimit: 5 } as never).enabled).toBe(true);
    });
  });

  it('scenario 64: merge of global and agent blocks (shallow + nested detectors and postCompactionGuard)', () => {
    const merged = mergeLoopDetectionConfig(
      { enabled: true, warningThreshold: 8, detectors: { pingPong: false }, postCompactionGuard: { windowSize: 5 } },
      { criticalThreshold: 16, detectors: { genericRepeat: false } },
    );
    expect(merged).toEqual({
      enabled: true,
      warningThreshold: 8,
      criticalThreshold: 16,
      detectors: { pingPong: false, genericRepeat: false },
      postCompactionGuard: { windowSize: 5 },
    });
    const resolved = resolveLoopDetectionConfig(merged);
    expect(resolved).toMatchObject({
      enabled: true,
      warningThreshold: 8,
      criticalThreshold: 16,
      detectors: { pingPong: false, genericRepeat: false, knownPollNoProgress: true },
      postCompactionGuard: { enabled: true, windowSize: 5 },
    });
  });

  it('scenario 65: global {enabled:true} + agent {enabled:false} → detectors and the guard are off for that agent', async () => {
    const resolver = new AgentConfigResolver({
      tools: { loopDetection: { enabled: true } },
      agents: { list: [{ id: 'quiet', tools: { loopDetection: { enabled: false } } }] },
    });
    const quiet = resolver.forAgent('quiet');
    expect(quiet.enabled).toBe(false);
    expect(quiet.postCompactionGuard.enabled).toBe(false);
    expect(quiet.trackHistory).toBe(false);
    // Off means off: nothing is recorded and nothing is detected for that agent (#122631).
    const h = await EngineHarness.create(mergeLoopDetectionConfig({ enabled: true }, { enabled: false }));
    h.completed(30, 'read', SAME, SAME_RESULT);
    expect(h.records()).toEqual([]);
    expect(h.check('read', SAME).verdict).toBeUndefined();
    const other = resolver.forAgent('other');
    expect(other.enabled).toBe(true);
    expect(other.postCompactionGuard.enabled).toBe(true);
  });
});
