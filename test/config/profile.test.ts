/** `profile: 'small-model'`: a named profile resolved like the other keys, and the file shipped with it. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  AgentConfigResolver,
  loadConfigFile,
  resolveLoopDetectionConfig,
  validateToolLoopGuardConfig,
} from '../../src/config/index.js';
import { SMALL_MODEL_PROFILE } from '../../src/config/profiles.js';
import { fixtureDir, jsonl, runCli } from '../cli/helpers.js';
import { RecordingLogger } from '../helpers/engine-harness.js';

const PROFILE_FILE = 'profiles/small-model.json5';

describe("profile: 'small-model'", () => {
  it('profiles/small-model.json5 resolves exactly as the built-in profile', async () => {
    const loaded = await loadConfigFile(PROFILE_FILE);
    expect(loaded.warnings).toEqual([]);
    const fromFile = new AgentConfigResolver(loaded.config).forAgent();
    const builtIn = new AgentConfigResolver({ tools: { loopDetection: { profile: 'small-model' } } }).forAgent();
    expect(fromFile).toEqual(builtIn);
    expect(loaded.config.tools?.loopDetection).toEqual(JSON.parse(JSON.stringify(SMALL_MODEL_PROFILE)));
  });

  it('turns detection on, requires no-progress evidence, and adds the same-failure detector', () => {
    const config = resolveLoopDetectionConfig({ profile: 'small-model' });
    expect(config).toMatchObject({
      enabled: true,
      genericRepeatInARow: true,
      pingPongRequiresNoProgress: true,
      warningThreshold: 8,
      criticalThreshold: 10,
      similarOutcomeThreshold: 10,
      similarOutcomeWarningThreshold: 8,
      unknownToolThreshold: 10,
      unknownToolWarningThreshold: 8,
      detectors: {
        similarOutcome: true,
        resultCycle: false,
        identicalCallBudget: false,
        redundantCall: false,
        genericRepeat: true,
        pingPong: true,
      },
    });
  });

  it('explicit settings override the profile, nested detector toggles one by one', () => {
    const config = resolveLoopDetectionConfig({
      profile: 'small-model',
      criticalThreshold: 12,
      similarOutcomeThreshold: 8,
      detectors: { resultCycle: true },
    });
    expect(config).toMatchObject({
      criticalThreshold: 12,
      warningThreshold: 8,
      similarOutcomeThreshold: 8,
      similarOutcomeWarningThreshold: 7,
      detectors: { resultCycle: true, similarOutcome: true },
    });
    expect(resolveLoopDetectionConfig({ profile: 'small-model', enabled: false }).enabled).toBe(false);
  });

  it('a per-agent block can name the profile; the global keys still override it', () => {
    const resolver = new AgentConfigResolver({
      tools: { loopDetection: { warningThreshold: 5 } },
      agents: { list: [{ id: 'small', tools: { loopDetection: { profile: 'small-model', criticalThreshold: 7 } } }] },
    });
    expect(resolver.forAgent('small')).toMatchObject({ enabled: true, warningThreshold: 5, criticalThreshold: 7 });
    expect(resolver.forAgent('other')).toMatchObject({ enabled: false, warningThreshold: 5 });
  });

  it('an unknown profile is ignored with a warning naming the key', () => {
    const logger = new RecordingLogger();
    const config = resolveLoopDetectionConfig({ profile: 'tiny' as never }, { logger });
    expect(config).toEqual(resolveLoopDetectionConfig({}));
    expect(logger.at('warn')).toEqual([
      'tools.loopDetection.profile: unknown profile "tiny" (known: small-model); ignored',
    ]);
    expect(validateToolLoopGuardConfig({ tools: { loopDetection: { profile: 'tiny' } } })).toEqual([
      {
        path: 'tools.loopDetection.profile',
        message: 'unknown profile "tiny" (known: small-model); ignored',
        severity: 'warning',
      },
    ]);
    expect(validateToolLoopGuardConfig({ tools: { loopDetection: { profile: 3 } } })[0]).toMatchObject({
      path: 'tools.loopDetection.profile',
      severity: 'error',
    });
  });

  it('works as `analyze --config`: the same feedback to changing calls is warned, then blocked by similar_outcome', async () => {
    const fx = fixtureDir();
    try {
      const feedback = Array.from({ length: 12 }, (_, i) => ({
        step: i + 1,
        tool: 'search_code',
        args: { code_str: `attempt ${String.fromCharCode(97 + i)}` },
        result: 'The search API calls seem not valid. Please check the arguments you give carefully and try again.',
        error: true,
      }));
      const run = fx.write('run.jsonl', jsonl(feedback));
      const { code, stdout } = await runCli(['analyze', '--json', '--config', PROFILE_FILE, run]);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        runs: Array<{ firstBlock?: { call: number }; events: Array<{ action: string; detector: string }> }>;
      };
      expect(report.runs[0].firstBlock?.call).toBe(11);
      expect(report.runs[0].events[0]).toMatchObject({ action: 'warn', detector: 'similar_outcome' });
      expect(report.runs[0].events.find((event) => event.action === 'block')?.detector).toBe('similar_outcome');
      const defaults = JSON.parse((await runCli(['analyze', '--json', '--enable', run])).stdout) as typeof report;
      expect(defaults.runs[0].firstBlock).toBeUndefined();
    } finally {
      fx.cleanup();
    }
  });

  it('the file is the one the docs name, and it says so', async () => {
    expect(await readFile(PROFILE_FILE, 'utf8')).toContain("profile: 'small-model'");
  });
});

describe('opt-in detector settings', () => {
  it('invalid values fall back with a warning naming the key', () => {
    const logger = new RecordingLogger();
    const config = resolveLoopDetectionConfig(
      { similarityPercent: 140, cycleCriticalLaps: 1, lowGainCallBudget: 0 },
      { logger },
    );
    expect(config).toMatchObject({ similarityPercent: 90, cycleCriticalLaps: 2, lowGainCallBudget: 5 });
    expect(logger.at('warn')).toEqual([
      'tools.loopDetection.cycleCriticalLaps: 1 is below 2 (one lap repeats nothing); clamped to 2',
      'tools.loopDetection.lowGainCallBudget: expected a positive integer, got 0; using default 5',
      'tools.loopDetection.similarityPercent: expected a percentage (1-100), got 140; using default 90',
    ]);
    expect(validateToolLoopGuardConfig({ tools: { loopDetection: { similarityPercent: 101 } } })[0]).toMatchObject({
      path: 'tools.loopDetection.similarityPercent',
      severity: 'error',
    });
  });
});
