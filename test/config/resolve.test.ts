/** `resolveLoopDetectionConfig`: defaults, fallbacks with warnings naming the key, clamping. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOOP_DETECTION_CONFIG,
  isPositiveInteger,
  resolveLoopDetectionConfig,
  type LoopDetectionConfig,
} from '../../src/config/index.js';
import { RecordingLogger } from '../helpers/engine-harness.js';

function resolve(block: unknown, keyPath?: string) {
  const logger = new RecordingLogger();
  const config = resolveLoopDetectionConfig(
    block as LoopDetectionConfig,
    keyPath === undefined ? { logger } : { logger, keyPath },
  );
  return { config, warnings: logger.at('warn'), logger };
}

const NUMERIC_KEYS = [
  'historySize',
  'warningThreshold',
  'criticalThreshold',
  'globalCircuitBreakerThreshold',
  'unknownToolThreshold',
] as const;
/** The toggles of OpenClaw's newer rules, each on by default. */
const NEWER_RULES_ON = {
  vetoesExtendStreak: true,
  batchAdmission: true,
  execFailureIdentity: true,
  typedErrorRepeat: true,
  argumentChurn: true,
  waitPoll: true,
};
/** This package's opt-in detectors: off unless enabled. */
const OPT_IN_OFF = { resultCycle: false, identicalCallBudget: false, similarOutcome: false, redundantCall: false };
const ALL_DETECTORS_ON = {
  genericRepeat: true,
  knownPollNoProgress: true,
  pingPong: true,
  ...NEWER_RULES_ON,
  ...OPT_IN_OFF,
};
/** The built-in values of OpenClaw's newer rules, and the opt-in detectors' defaults. */
const NEWER_THRESHOLDS = {
  waitCriticalThreshold: 10,
  typedErrorWarningThreshold: 3,
  typedErrorCriticalThreshold: 5,
  cycleCriticalLaps: 3,
  cycleWarningLaps: 2,
  identicalCallBudget: 10,
  identicalCallWarningThreshold: 5,
  lowGainCallBudget: 5,
  lowGainCallWarningThreshold: 3,
  similarOutcomeThreshold: 10,
  similarOutcomeWarningThreshold: 5,
  redundantCallBudget: 8,
  redundantCallWarningThreshold: 4,
  similarityPercent: 90,
  unknownToolWarningThreshold: 0,
  pingPongRequiresNoProgress: false,
  genericRepeatInARow: false,
};

const DEFAULTS = {
  historySize: 30,
  warningThreshold: 10,
  criticalThreshold: 20,
  globalCircuitBreakerThreshold: 30,
  unknownToolThreshold: 10,
};

describe('resolveLoopDetectionConfig', () => {
  it('no block → documented defaults: detectors off, guard on with window 3, history tracked', () => {
    const { config, logger } = resolve(undefined);
    expect(config).toEqual({
      enabled: false,
      trackHistory: true,
      historySize: 30,
      warningThreshold: 10,
      criticalThreshold: 20,
      globalCircuitBreakerThreshold: 30,
      unknownToolThreshold: 10,
      ...NEWER_THRESHOLDS,
      detectors: ALL_DETECTORS_ON,
      postCompactionGuard: { enabled: true, windowSize: 3 },
    });
    expect(config).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(logger.lines).toEqual([]);
  });

  it('tri-state enabled: unset → detectors off, guard on; true → both on; false → both off, no history', () => {
    expect(resolve({}).config).toMatchObject({
      enabled: false,
      trackHistory: true,
      postCompactionGuard: { enabled: true },
    });
    expect(resolve({ enabled: true }).config).toMatchObject({
      enabled: true,
      trackHistory: true,
      postCompactionGuard: { enabled: true },
    });
    expect(resolve({ enabled: false }).config).toMatchObject({
      enabled: false,
      trackHistory: false,
      postCompactionGuard: { enabled: false },
    });
  });

  it('valid values are used as given', () => {
    const { config, warnings } = resolve({
      enabled: true,
      historySize: 50,
      warningThreshold: 5,
      criticalThreshold: 8,
      globalCircuitBreakerThreshold: 12,
      unknownToolThreshold: 4,
      waitCriticalThreshold: 6,
      typedErrorWarningThreshold: 2,
      typedErrorCriticalThreshold: 4,
      cycleCriticalLaps: 2,
      identicalCallBudget: 6,
      lowGainCallBudget: 3,
      similarOutcomeThreshold: 7,
      redundantCallBudget: 3,
      similarityPercent: 95,
      detectors: {
        genericRepeat: false,
        pingPong: false,
        vetoesExtendStreak: false,
        waitPoll: false,
        resultCycle: true,
        similarOutcome: true,
        redundantCall: true,
      },
      postCompactionGuard: { windowSize: 7 },
    });
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      enabled: true,
      trackHistory: true,
      historySize: 50,
      warningThreshold: 5,
      criticalThreshold: 8,
      globalCircuitBreakerThreshold: 12,
      unknownToolThreshold: 4,
      waitCriticalThreshold: 6,
      typedErrorWarningThreshold: 2,
      typedErrorCriticalThreshold: 4,
      cycleCriticalLaps: 2,
      cycleWarningLaps: 0,
      identicalCallBudget: 6,
      identicalCallWarningThreshold: 3,
      lowGainCallBudget: 3,
      lowGainCallWarningThreshold: 2,
      similarOutcomeThreshold: 7,
      similarOutcomeWarningThreshold: 4,
      redundantCallBudget: 3,
      redundantCallWarningThreshold: 2,
      similarityPercent: 95,
      unknownToolWarningThreshold: 0,
      pingPongRequiresNoProgress: false,
      genericRepeatInARow: false,
      detectors: {
        ...ALL_DETECTORS_ON,
        resultCycle: true,
        similarOutcome: true,
        redundantCall: true,
        genericRepeat: false,
        pingPong: false,
        vetoesExtendStreak: false,
        waitPoll: false,
      },
      postCompactionGuard: { enabled: true, windowSize: 7 },
    });
  });

  describe('invalid numbers fall back to the default with a warning naming the key', () => {
    const INVALID: Array<[string, unknown]> = [
      ['0', 0],
      ['-1', -1],
      ['2.5', 2.5],
      ['"5"', '5'],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['null', null],
      ['true', true],
      ['an object', { n: 5 }],
    ];
    for (const key of NUMERIC_KEYS) {
      for (const [label, value] of INVALID) {
        it(`${key} = ${label} → default ${DEFAULTS[key]}`, () => {
          const { config, warnings } = resolve({ enabled: true, [key]: value });
          expect(config[key]).toBe(DEFAULTS[key]);
          expect(warnings).toHaveLength(1);
          expect(warnings[0]).toContain(`tools.loopDetection.${key}`);
          expect(warnings[0]).toContain(String(DEFAULTS[key]));
        });
      }
    }

    for (const [label, value] of INVALID) {
      it(`postCompactionGuard.windowSize = ${label} → default 3`, () => {
        const { config, warnings } = resolve({ postCompactionGuard: { windowSize: value } });
        expect(config.postCompactionGuard.windowSize).toBe(3);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain('tools.loopDetection.postCompactionGuard.windowSize');
      });
    }

    it('a threshold beyond safe integers (1e308) falls back with a warning naming the key', () => {
      // 1e308 passes Number.isInteger but is far beyond Number.MAX_SAFE_INTEGER: W + 1 is
      // then equal to W, so the warning < critical < breaker clamp cannot hold.
      const { config, warnings } = resolve({ enabled: true, warningThreshold: 1e308 });
      expect(config.warningThreshold).toBe(10);
      expect(warnings.some((line) => line.includes('tools.loopDetection.warningThreshold'))).toBe(true);
      expect(config.criticalThreshold).toBeGreaterThan(config.warningThreshold);
      expect(config.globalCircuitBreakerThreshold).toBeGreaterThan(config.criticalThreshold);
    });

    it('a huge historySize (1e308, no safe integer) falls back with a warning naming the key', () => {
      const { config, warnings } = resolve({ historySize: 1e308 });
      expect(config.historySize).toBe(30);
      expect(warnings.some((line) => line.includes('tools.loopDetection.historySize'))).toBe(true);
    });

    it('the warning uses the given key path prefix', () => {
      const { warnings } = resolve({ warningThreshold: 0 }, 'agents.list[2].tools.loopDetection');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('agents.list[2].tools.loopDetection.warningThreshold');
    });
  });

  describe('booleans', () => {
    it.each([
      ['"yes"', 'yes'],
      ['1', 1],
      ['null', null],
    ])('detectors.pingPong = %s → default true with a warning naming the key', (_label, value) => {
      const { config, warnings } = resolve({ enabled: true, detectors: { pingPong: value } });
      expect(config.detectors.pingPong).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.detectors.pingPong');
    });

    it('enabled = "true" (a string) → treated as unset, with a warning naming the key', () => {
      const { config, warnings } = resolve({ enabled: 'true' });
      expect(config.enabled).toBe(false);
      expect(config.postCompactionGuard.enabled).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.enabled');
    });

    it('detectors that is not an object → all detectors on, with a warning naming the key', () => {
      const { config, warnings } = resolve({ enabled: true, detectors: [false] });
      expect(config.detectors).toEqual(ALL_DETECTORS_ON);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.detectors');
    });
  });

  describe('clamping (each with a warning naming the key)', () => {
    it('criticalThreshold ≤ warningThreshold → warning + 1', () => {
      const { config, warnings } = resolve({ warningThreshold: 25 });
      expect(config).toMatchObject({ warningThreshold: 25, criticalThreshold: 26, globalCircuitBreakerThreshold: 30 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.criticalThreshold');
      expect(warnings[0]).toContain('26');
    });

    it('globalCircuitBreakerThreshold ≤ the clamped critical → critical + 1', () => {
      const { config, warnings } = resolve({ warningThreshold: 29 });
      expect(config).toMatchObject({ warningThreshold: 29, criticalThreshold: 30, globalCircuitBreakerThreshold: 31 });
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('tools.loopDetection.criticalThreshold');
      expect(warnings[1]).toContain('tools.loopDetection.globalCircuitBreakerThreshold');
    });

    it('an invalid critical falls back to 20 before clamping', () => {
      const { config } = resolve({ warningThreshold: 25, criticalThreshold: -3 });
      expect(config).toMatchObject({ warningThreshold: 25, criticalThreshold: 26, globalCircuitBreakerThreshold: 30 });
    });

    it('typedErrorCriticalThreshold ≤ typedErrorWarningThreshold → warning + 1', () => {
      const { config, warnings } = resolve({ typedErrorWarningThreshold: 5, typedErrorCriticalThreshold: 5 });
      expect(config).toMatchObject({ typedErrorWarningThreshold: 5, typedErrorCriticalThreshold: 6 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.typedErrorCriticalThreshold');
    });

    it('a newer rule toggle that is not a boolean falls back to on, naming the key', () => {
      const { config, warnings } = resolve({ detectors: { vetoesExtendStreak: 'no' } });
      expect(config.detectors.vetoesExtendStreak).toBe(true);
      expect(warnings).toEqual([expect.stringContaining('tools.loopDetection.detectors.vetoesExtendStreak')]);
    });

    it('unknownToolThreshold is not clamped against the others', () => {
      const { config, warnings } = resolve({ warningThreshold: 5, unknownToolThreshold: 1 });
      expect(config.unknownToolThreshold).toBe(1);
      expect(warnings).toEqual([]);
    });
  });

  it('unknown keys do not crash and are ignored', () => {
    const { config } = resolve({ enabled: true, turnLimit: 3, detectors: { someFutureDetector: true } });
    expect(config.enabled).toBe(true);
    expect(config.detectors).toEqual(ALL_DETECTORS_ON);
    expect(Object.keys(config)).not.toContain('turnLimit');
  });

  it.each([
    ['null', null],
    ['an array', [1]],
    ['a string', 'on'],
    ['a number', 5],
  ])('a block that is %s → defaults with a warning', (_label, block) => {
    const { config, warnings } = resolve(block);
    expect(config).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tools.loopDetection');
  });

  describe('warning steps: every detector can warn before it blocks', () => {
    it('unset → half the critical, rounded up; none when no count is left below it', () => {
      const { config, warnings } = resolve({
        similarOutcomeThreshold: 5,
        redundantCallBudget: 1,
        cycleCriticalLaps: 2,
      });
      expect(config.similarOutcomeWarningThreshold).toBe(3);
      expect(config.redundantCallWarningThreshold).toBe(0);
      expect(config.cycleWarningLaps).toBe(0);
      expect(warnings).toEqual([]);
    });

    it('the unknown-tool rule has no warning step unless one is set (OpenClaw has none)', () => {
      expect(resolve({}).config.unknownToolWarningThreshold).toBe(0);
      expect(resolve({ unknownToolWarningThreshold: 5 }).config.unknownToolWarningThreshold).toBe(5);
    });

    it('a step at or above its critical is clamped below it, with a warning naming both keys', () => {
      const { config, warnings } = resolve({ similarOutcomeThreshold: 5, similarOutcomeWarningThreshold: 9 });
      expect(config.similarOutcomeWarningThreshold).toBe(4);
      expect(warnings).toEqual([
        'tools.loopDetection.similarOutcomeWarningThreshold: 9 is not below similarOutcomeThreshold 5; clamped to 4',
      ]);
      const laps = resolve({ cycleCriticalLaps: 2, cycleWarningLaps: 2 });
      expect(laps.config.cycleWarningLaps).toBe(0);
      expect(laps.warnings[0]).toContain('no warning step is left');
    });

    it('an invalid step falls back to the default step with a warning naming the key', () => {
      const { config, warnings } = resolve({ identicalCallBudget: 8, identicalCallWarningThreshold: 'four' });
      expect(config.identicalCallWarningThreshold).toBe(4);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('tools.loopDetection.identicalCallWarningThreshold');
    });

    it('pingPongRequiresNoProgress is a boolean, off by default (OpenClaw warns on any alternation)', () => {
      expect(resolve({}).config.pingPongRequiresNoProgress).toBe(false);
      expect(resolve({ pingPongRequiresNoProgress: true }).config.pingPongRequiresNoProgress).toBe(true);
      const { config, warnings } = resolve({ pingPongRequiresNoProgress: 'yes' });
      expect(config.pingPongRequiresNoProgress).toBe(false);
      expect(warnings[0]).toContain('tools.loopDetection.pingPongRequiresNoProgress');
    });
  });

  it('isPositiveInteger', () => {
    expect([1, 2, 30].every(isPositiveInteger)).toBe(true);
    expect([0, -1, 2.5, '5', Number.NaN, Number.POSITIVE_INFINITY, null, undefined].some(isPositiveInteger)).toBe(
      false,
    );
  });
});

describe('byTool: thresholds per tool', () => {
  it("an entry's thresholds override the block's for that tool, clamped per tool", () => {
    const { config, warnings } = resolve({
      enabled: true,
      warningThreshold: 5,
      criticalThreshold: 10,
      byTool: { transfer_to_human_agents: { criticalThreshold: 14 }, poll_status: { warningThreshold: 12 } },
    });
    expect(warnings).toEqual([
      'tools.loopDetection.byTool["poll_status"].criticalThreshold: 10 is not above warningThreshold 12; clamped to 13',
    ]);
    expect(config.criticalThreshold).toBe(10);
    expect(config.byTool?.get('transfer_to_human_agents')).toMatchObject({
      warningThreshold: 5,
      criticalThreshold: 14,
    });
    expect(config.byTool?.get('poll_status')).toMatchObject({ warningThreshold: 12, criticalThreshold: 13 });
    expect(config.byTool?.get('transfer_to_human_agents')?.byTool).toBeUndefined();
  });

  it('keys that belong to the run, not to a tool, are ignored with a warning; so is a bad entry', () => {
    const { config, warnings } = resolve({
      enabled: true,
      criticalThreshold: 12,
      byTool: { read: { historySize: 5, enabled: false, criticalThreshold: 'x' }, write: 3 },
    });
    expect(warnings).toEqual([
      'tools.loopDetection.byTool["read"].historySize: not a per-tool threshold (ignored)',
      'tools.loopDetection.byTool["read"].enabled: not a per-tool threshold (ignored)',
      'tools.loopDetection.byTool["read"].criticalThreshold: expected a positive integer, got "x"; the block\'s value applies',
      'tools.loopDetection.byTool["write"]: expected an object of thresholds, got 3; ignored',
    ]);
    expect(config.byTool?.get('read')).toMatchObject({ enabled: true, historySize: 30, criticalThreshold: 12 });
    expect(config.byTool?.has('write')).toBe(false);
  });

  it('a tool named like an Object.prototype member is an ordinary tool', () => {
    const { config } = resolve(JSON.parse('{"enabled":true,"byTool":{"__proto__":{"criticalThreshold":40}}}'));
    expect(config.byTool?.get('__proto__')?.criticalThreshold).toBe(40);
    expect(config.byTool?.get('constructor')).toBeUndefined();
  });
});
