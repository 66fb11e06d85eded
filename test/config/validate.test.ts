/** `validateToolLoopGuardConfig` / `validateLoopDetectionConfig`: OpenClaw's schema rules. */
import { describe, expect, it } from 'vitest';
import { validateLoopDetectionConfig, validateToolLoopGuardConfig, type ConfigIssue } from '../../src/config/index.js';

const paths = (issues: ConfigIssue[]) => issues.map((issue) => issue.path);
const errors = (issues: ConfigIssue[]) => issues.filter((issue) => issue.severity === 'error');

describe('validateToolLoopGuardConfig', () => {
  it('a full valid config has no issues', () => {
    expect(
      validateToolLoopGuardConfig({
        tools: {
          loopDetection: {
            enabled: true,
            historySize: 30,
            warningThreshold: 10,
            criticalThreshold: 20,
            globalCircuitBreakerThreshold: 30,
            unknownToolThreshold: 10,
            detectors: { genericRepeat: true, knownPollNoProgress: true, pingPong: false },
            postCompactionGuard: { windowSize: 3 },
          },
        },
        agents: { list: [{ id: 'main', tools: { loopDetection: { enabled: false } } }] },
      }),
    ).toEqual([]);
    expect(validateToolLoopGuardConfig({})).toEqual([]);
  });

  it.each([
    ['an array', [1, 2]],
    ['a number', 42],
    ['null', null],
    ['a string', 'tools'],
  ])('a top level that is %s → an error at the root', (_label, value) => {
    const issues = validateToolLoopGuardConfig(value);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: '(root)', severity: 'error' });
  });

  it.each([
    ['warningThreshold', 0],
    ['warningThreshold', -1],
    ['warningThreshold', 2.5],
    ['warningThreshold', '5'],
    ['warningThreshold', null],
    ['historySize', Number.NaN],
    ['criticalThreshold', Number.POSITIVE_INFINITY],
    ['unknownToolThreshold', true],
  ])('tools.loopDetection.%s = %j → an error naming the key path', (key, value) => {
    const issues = validateToolLoopGuardConfig({ tools: { loopDetection: { [key]: value } } });
    expect(errors(issues).map((i) => i.path)).toEqual([`tools.loopDetection.${key}`]);
    expect(issues[0].message).toMatch(/expected a positive integer/);
  });

  it('a huge number (1e308) is rejected as a threshold', () => {
    // Beyond Number.MAX_SAFE_INTEGER, `+ 1` is lost, so the clamping rules cannot hold.
    const issues = validateToolLoopGuardConfig({ tools: { loopDetection: { warningThreshold: 1e308 } } });
    expect(errors(issues).map((i) => i.path)).toEqual(['tools.loopDetection.warningThreshold']);
  });

  it('wrong boolean and nested types are errors with their key paths', () => {
    const issues = validateToolLoopGuardConfig({
      tools: {
        loopDetection: { enabled: 'yes', detectors: { pingPong: 'no' }, postCompactionGuard: { windowSize: 0 } },
      },
      agents: { list: [{ id: 'a', tools: { loopDetection: { detectors: { pingPong: 1 } } } }] },
    });
    expect(paths(errors(issues))).toEqual([
      'tools.loopDetection.enabled',
      'tools.loopDetection.detectors.pingPong',
      'tools.loopDetection.postCompactionGuard.windowSize',
      'agents.list[0].tools.loopDetection.detectors.pingPong',
    ]);
  });

  it('structural errors: tools, agents, agents.list, entries and ids', () => {
    expect(paths(errors(validateToolLoopGuardConfig({ tools: [] })))).toEqual(['tools']);
    expect(paths(errors(validateToolLoopGuardConfig({ agents: 'x' })))).toEqual(['agents']);
    expect(paths(errors(validateToolLoopGuardConfig({ agents: { list: {} } })))).toEqual(['agents.list']);
    expect(paths(errors(validateToolLoopGuardConfig({ agents: { list: [5] } })))).toEqual(['agents.list[0]']);
    expect(paths(errors(validateToolLoopGuardConfig({ agents: { list: [{ id: '  ' }, { tools: {} }] } })))).toEqual([
      'agents.list[0].id',
      'agents.list[1].id',
    ]);
    expect(paths(errors(validateToolLoopGuardConfig({ tools: { loopDetection: [] } })))).toEqual([
      'tools.loopDetection',
    ]);
  });

  it('unknown keys at every level are warnings, not errors', () => {
    const issues = validateToolLoopGuardConfig({
      extra: 1,
      tools: {
        other: {},
        loopDetection: {
          turnLimit: 3,
          detectors: { someFutureDetector: true },
          postCompactionGuard: { enabled: true },
        },
      },
      agents: { defaults: {}, list: [{ id: 'a', name: 'A', tools: { exec: {}, loopDetection: { foo: 1 } } }] },
    });
    expect(errors(issues)).toEqual([]);
    expect(paths(issues).sort()).toEqual(
      [
        'extra',
        'tools.other',
        'tools.loopDetection.turnLimit',
        'tools.loopDetection.detectors.someFutureDetector',
        'tools.loopDetection.postCompactionGuard.enabled',
        'agents.defaults',
        'agents.list[0].name',
        'agents.list[0].tools.exec',
        'agents.list[0].tools.loopDetection.foo',
      ].sort(),
    );
    expect(issues.every((issue) => issue.severity === 'warning')).toBe(true);
  });

  it('pairwise rules are reported (as warnings) only when both keys of a pair are present', () => {
    // Deliberate difference: OpenClaw's zod schema rejects these; we warn and the runtime clamps.
    expect(validateLoopDetectionConfig({ warningThreshold: 12, criticalThreshold: 11 })).toEqual([
      {
        path: 'tools.loopDetection.criticalThreshold',
        message: 'tools.loopDetection.warningThreshold must be lower than criticalThreshold.',
        severity: 'warning',
      },
    ]);
    expect(validateLoopDetectionConfig({ criticalThreshold: 31, globalCircuitBreakerThreshold: 30 })).toEqual([
      {
        path: 'tools.loopDetection.globalCircuitBreakerThreshold',
        message: 'tools.loopDetection.criticalThreshold must be lower than globalCircuitBreakerThreshold.',
        severity: 'warning',
      },
    ]);
    // One of a pair alone is not checked (the runtime clamps against the default).
    expect(validateLoopDetectionConfig({ warningThreshold: 25 })).toEqual([]);
    expect(validateLoopDetectionConfig({ criticalThreshold: 40 })).toEqual([]);
  });

  it('pairwise rules inside an agent entry are reported at the agent path', () => {
    const issues = validateToolLoopGuardConfig({
      agents: { list: [{ id: 'a', tools: { loopDetection: { warningThreshold: 10, criticalThreshold: 10 } } }] },
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      path: 'agents.list[0].tools.loopDetection.criticalThreshold',
      severity: 'warning',
    });
  });

  it('byTool: tool names to threshold keys; other keys warn, wrong values are errors', () => {
    const block = (byTool: unknown) => validateToolLoopGuardConfig({ tools: { loopDetection: { byTool } } });
    expect(block({ poll_status: { criticalThreshold: 15, warningThreshold: 12 }, __proto__x: {} })).toEqual([]);
    expect(block({ read: { historySize: 5 } })).toEqual([
      { path: 'tools.loopDetection.byTool["read"].historySize', message: 'unknown key (ignored)', severity: 'warning' },
    ]);
    expect(errors(block({ read: { criticalThreshold: 0 } })).map((i) => i.path)).toEqual([
      'tools.loopDetection.byTool["read"].criticalThreshold',
    ]);
    expect(errors(block([1]))).toHaveLength(1);
    expect(errors(block({ read: 3 }))).toHaveLength(1);
  });

  it('the recommended profile file has no issues', async () => {
    const { loadConfigFile } = await import('../../src/config/load-file.js');
    const loaded = await loadConfigFile(new URL('../../profiles/small-model.json5', import.meta.url).pathname);
    expect(loaded.warnings).toEqual([]);
  });

  it('never throws, even on odd input', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.tools = cyclic;
    expect(() => validateToolLoopGuardConfig(cyclic)).not.toThrow();
    expect(() => validateToolLoopGuardConfig(undefined)).not.toThrow();
  });
});
