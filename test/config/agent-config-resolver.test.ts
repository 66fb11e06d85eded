/** `AgentConfigResolver`: per-agent merged, validated and clamped config. */
import { describe, expect, it } from 'vitest';
import {
  AgentConfigResolver,
  DEFAULT_LOOP_DETECTION_CONFIG,
  type ToolLoopGuardConfig,
} from '../../src/config/index.js';
import { RecordingLogger } from '../helpers/engine-harness.js';

describe('AgentConfigResolver', () => {
  it('no config at all → the defaults for every agent', () => {
    const logger = new RecordingLogger();
    const resolver = new AgentConfigResolver(undefined, logger);
    expect(resolver.forAgent()).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(resolver.forAgent('main')).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(logger.lines).toEqual([]);
  });

  it('global only → the global block for listed and unlisted agents', () => {
    const resolver = new AgentConfigResolver({ tools: { loopDetection: { enabled: true, warningThreshold: 7 } } });
    expect(resolver.forAgent()).toMatchObject({ enabled: true, warningThreshold: 7 });
    expect(resolver.forAgent('anyone')).toMatchObject({ enabled: true, warningThreshold: 7 });
  });

  it('agent only → the agent block for that agent; defaults for the others', () => {
    const resolver = new AgentConfigResolver({
      agents: { list: [{ id: 'worker', tools: { loopDetection: { enabled: true, historySize: 12 } } }] },
    });
    expect(resolver.forAgent('worker')).toMatchObject({ enabled: true, historySize: 12 });
    expect(resolver.forAgent('other')).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(resolver.forAgent()).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
  });

  it('both → merged with nested detectors and postCompactionGuard (spec scenario 64)', () => {
    const config: ToolLoopGuardConfig = {
      tools: {
        loopDetection: {
          enabled: true,
          warningThreshold: 8,
          detectors: { pingPong: false },
          postCompactionGuard: { windowSize: 5 },
        },
      },
      agents: {
        list: [
          { id: 'worker', tools: { loopDetection: { criticalThreshold: 16, detectors: { genericRepeat: false } } } },
        ],
      },
    };
    const resolved = new AgentConfigResolver(config).forAgent('worker');
    expect(resolved).toMatchObject({
      enabled: true,
      warningThreshold: 8,
      criticalThreshold: 16,
      globalCircuitBreakerThreshold: 30,
      detectors: { pingPong: false, genericRepeat: false, knownPollNoProgress: true },
      postCompactionGuard: { enabled: true, windowSize: 5 },
    });
  });

  it('agent enabled:false turns detectors and the guard off for that agent only', () => {
    const resolver = new AgentConfigResolver({
      tools: { loopDetection: { enabled: true } },
      agents: { list: [{ id: 'quiet', tools: { loopDetection: { enabled: false } } }, { id: 'loud' }] },
    });
    expect(resolver.forAgent('quiet')).toMatchObject({
      enabled: false,
      trackHistory: false,
      postCompactionGuard: { enabled: false },
    });
    expect(resolver.forAgent('loud')).toMatchObject({ enabled: true, postCompactionGuard: { enabled: true } });
  });

  it('agent ids are trimmed; the first matching entry wins', () => {
    const resolver = new AgentConfigResolver({
      agents: {
        list: [
          { id: ' dup ', tools: { loopDetection: { warningThreshold: 3 } } },
          { id: 'dup', tools: { loopDetection: { warningThreshold: 4 } } },
        ],
      },
    });
    expect(resolver.forAgent('dup').warningThreshold).toBe(3);
    expect(resolver.forAgent('  dup').warningThreshold).toBe(3);
  });

  it('resolves each agent once (the same object is returned)', () => {
    const resolver = new AgentConfigResolver({
      agents: { list: [{ id: 'a', tools: { loopDetection: { enabled: true } } }] },
    });
    expect(resolver.forAgent('a')).toBe(resolver.forAgent('a'));
    expect(resolver.forAgent()).toBe(resolver.forAgent('unknown'));
  });

  it('unknown keys warn (with their path) and do not crash', () => {
    const logger = new RecordingLogger();
    const resolver = new AgentConfigResolver(
      { tools: { loopDetection: { enabled: true, turnLimit: 5 } } } as unknown as ToolLoopGuardConfig,
      logger,
    );
    expect(resolver.forAgent().enabled).toBe(true);
    const warnings = logger.at('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tools.loopDetection.turnLimit');
  });

  it('invalid values warn naming the key and fall back', () => {
    const logger = new RecordingLogger();
    const resolver = new AgentConfigResolver(
      { tools: { loopDetection: { enabled: true, warningThreshold: 0 } } },
      logger,
    );
    expect(resolver.forAgent().warningThreshold).toBe(10);
    expect(logger.at('warn').length).toBeGreaterThanOrEqual(1);
    expect(logger.at('warn').every((line) => line.includes('tools.loopDetection.warningThreshold'))).toBe(true);
  });

  it('a clamp after the merge warns naming the agent entry and the key', () => {
    const logger = new RecordingLogger();
    const resolver = new AgentConfigResolver(
      {
        tools: { loopDetection: { enabled: true, criticalThreshold: 12 } },
        agents: { list: [{ id: 'w', tools: { loopDetection: { warningThreshold: 15 } } }] },
      },
      logger,
    );
    expect(logger.lines).toEqual([]);
    expect(resolver.forAgent('w')).toMatchObject({ warningThreshold: 15, criticalThreshold: 16 });
    const warnings = logger.at('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('agents.list[0]');
    expect(warnings[0]).toContain('criticalThreshold');
  });

  it('a malformed config object does not crash the resolver', () => {
    const logger = new RecordingLogger();
    const resolver = new AgentConfigResolver([1, 2] as unknown as ToolLoopGuardConfig, logger);
    expect(resolver.forAgent('x')).toEqual(DEFAULT_LOOP_DETECTION_CONFIG);
    expect(logger.at('warn').length).toBeGreaterThan(0);
  });
});
