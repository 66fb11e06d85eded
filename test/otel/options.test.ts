/**
 * Option resolution (src/otel/options.ts): explicit option → TOOL_LOOP_GUARD_* env var →
 * default; an invalid value falls back to the default with a warning naming the key.
 * `resolveProcessorOptions` is called with an explicit env object and a recording logger, so
 * nothing here reads or writes `process.env` or the global diag logger.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LIVE_RUNS, DEFAULT_RUN_IDLE_TTL_MS, type ToolLoopSpanProcessorOptions } from '../../src/index.js';
import { resolveProcessorOptions, type ResolvedProcessorOptions } from '../../src/otel/options.js';
import { RecordingDiagLogger } from '../helpers/otel-harness.js';

type Env = Record<string, string | undefined>;

function resolve(options: ToolLoopSpanProcessorOptions, env: Env) {
  const logger = new RecordingDiagLogger();
  const resolved = resolveProcessorOptions(options, env, logger);
  return { resolved, warnings: logger.at('warn'), lines: logger.lines };
}

describe('defaults', () => {
  it('no options and an empty env: every default, no log line', () => {
    const { resolved, lines } = resolve({}, {});
    expect(resolved).toMatchObject({
      configFile: undefined,
      abortOnCritical: false,
      redactContent: false,
      runIdleTtlMs: DEFAULT_RUN_IDLE_TTL_MS,
      maxLiveRuns: DEFAULT_MAX_LIVE_RUNS,
      hashSeed: 0n,
    });
    expect(DEFAULT_RUN_IDLE_TTL_MS).toBe(900_000);
    expect(DEFAULT_MAX_LIVE_RUNS).toBe(10_000);
    expect(lines).toEqual([]);
  });
});

type BooleanKey = 'abortOnCritical' | 'redactContent';
/** Each switch with the value an unreadable setting gives: redaction fails closed (on), aborts keep their default. */
const BOOLEANS: Array<[BooleanKey, string, boolean]> = [
  ['abortOnCritical', 'TOOL_LOOP_GUARD_ABORT_ON_CRITICAL', false],
  ['redactContent', 'TOOL_LOOP_GUARD_REDACT_CONTENT', true],
];

describe.each(BOOLEANS)('%s / %s', (key, envKey, safe) => {
  it.each([
    ['true', true],
    ['1', true],
    [' TRUE ', true],
    ['yes', true],
    ['On', true],
    ['false', false],
    ['0', false],
    ['False', false],
    ['no', false],
    [' OFF ', false],
  ])('env %j applies when the option is absent → %s', (raw, expected) => {
    const { resolved, warnings } = resolve({}, { [envKey]: raw });
    expect(resolved[key]).toBe(expected);
    expect(warnings).toEqual([]);
  });

  it('a blank env value is absent: default false, no warning', () => {
    const { resolved, warnings } = resolve({}, { [envKey]: '  ' });
    expect(resolved[key]).toBe(false);
    expect(warnings).toEqual([]);
  });

  it.each([
    [true, 'false'],
    [false, 'true'],
  ])('explicit %s beats env %j', (explicit, raw) => {
    const { resolved, warnings } = resolve({ [key]: explicit }, { [envKey]: raw });
    expect(resolved[key]).toBe(explicit);
    expect(warnings).toEqual([]);
  });

  it.each(['2', 'truee', 'perhaps', 'y'])(
    'invalid env %j → the safe value, with a warning naming the env var',
    (raw) => {
      const { resolved, warnings } = resolve({}, { [envKey]: raw });
      expect(resolved[key]).toBe(safe);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(envKey);
      expect(warnings[0]).toContain(`using ${safe}`);
    },
  );

  it.each(['true', 1, null])(
    'invalid explicit %j → the safe value (not the env), with a warning naming the option',
    (explicit) => {
      const options = { [key]: explicit } as unknown as ToolLoopSpanProcessorOptions;
      const { resolved, warnings } = resolve(options, { [envKey]: safe ? 'false' : 'true' });
      expect(resolved[key]).toBe(safe);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`option ${key}`);
    },
  );
});

type PositiveKey = 'runIdleTtlMs' | 'maxLiveRuns';
const POSITIVES: Array<[PositiveKey, string, number]> = [
  ['runIdleTtlMs', 'TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS', DEFAULT_RUN_IDLE_TTL_MS],
  ['maxLiveRuns', 'TOOL_LOOP_GUARD_MAX_LIVE_RUNS', DEFAULT_MAX_LIVE_RUNS],
];

describe.each(POSITIVES)('%s / %s (default %i)', (key, envKey, fallback) => {
  it.each([
    ['5000', 5000],
    [' 42 ', 42],
    ['1', 1],
    ['1e3', 1000],
  ])('env %j applies when the option is absent → %i', (raw, expected) => {
    const { resolved, warnings } = resolve({}, { [envKey]: raw });
    expect(resolved[key]).toBe(expected);
    expect(warnings).toEqual([]);
  });

  it('a blank env value is absent: default, no warning', () => {
    const { resolved, warnings } = resolve({}, { [envKey]: ' ' });
    expect(resolved[key]).toBe(fallback);
    expect(warnings).toEqual([]);
  });

  it('explicit option beats env', () => {
    const { resolved, warnings } = resolve({ [key]: 7 }, { [envKey]: '5000' });
    expect(resolved[key]).toBe(7);
    expect(warnings).toEqual([]);
  });

  it.each(['0', '-5', '2.5', 'abc', '9007199254740993', 'Infinity'])(
    'invalid env %j → default, with a warning naming the env var',
    (raw) => {
      const { resolved, warnings } = resolve({}, { [envKey]: raw });
      expect(resolved[key]).toBe(fallback);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(envKey);
      expect(warnings[0]).toContain(`using ${fallback}`);
    },
  );

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100'])(
    'invalid explicit %j → default (not the env), with a warning naming the option',
    (explicit) => {
      const options = { [key]: explicit } as unknown as ToolLoopSpanProcessorOptions;
      const { resolved, warnings } = resolve(options, { [envKey]: '123' });
      expect(resolved[key]).toBe(fallback);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`option ${key}`);
    },
  );
});

describe('configFile / TOOL_LOOP_GUARD_CONFIG', () => {
  const ENV = 'TOOL_LOOP_GUARD_CONFIG';
  it.each<[string, ToolLoopSpanProcessorOptions, Env, string | undefined]>([
    ['env applies when the option is absent', {}, { [ENV]: '/etc/tlg.json5' }, '/etc/tlg.json5'],
    ['env is trimmed', {}, { [ENV]: '  /etc/tlg.json5  ' }, '/etc/tlg.json5'],
    ['a blank env value is absent', {}, { [ENV]: '   ' }, undefined],
    ['explicit configFile beats env', { configFile: './mine.json5' }, { [ENV]: '/etc/tlg.json5' }, './mine.json5'],
    ['an inline config wins over the env file', { config: {} }, { [ENV]: '/etc/tlg.json5' }, undefined],
    ['an inline config wins over an explicit file', { config: {}, configFile: './mine.json5' }, {}, undefined],
  ])('%s', (_name, options, env, expected) => {
    const { resolved, warnings } = resolve(options, env);
    expect(resolved.configFile).toBe(expected);
    expect(warnings).toEqual([]);
  });
});

describe('hashSeed / TOOL_LOOP_GUARD_HASH_SEED', () => {
  const ENV = 'TOOL_LOOP_GUARD_HASH_SEED';
  const MAX = (1n << 64n) - 1n;

  it.each<[string, ToolLoopSpanProcessorOptions, Env, bigint]>([
    ['env applies when the option is absent', {}, { [ENV]: '42' }, 42n],
    ['env accepts the largest 64-bit value', {}, { [ENV]: MAX.toString() }, MAX],
    ['env accepts hex', {}, { [ENV]: '0x10' }, 16n],
    ['an empty env value is absent', {}, { [ENV]: '' }, 0n],
    ['explicit number beats env', { hashSeed: 7 }, { [ENV]: '42' }, 7n],
    ['explicit bigint beats env', { hashSeed: 99n }, { [ENV]: '42' }, 99n],
    ['explicit 0 beats env', { hashSeed: 0 }, { [ENV]: '42' }, 0n],
  ])('%s', (_name, options, env, expected) => {
    const { resolved, warnings } = resolve(options, env);
    expect(resolved.hashSeed).toBe(expected);
    expect(warnings).toEqual([]);
  });

  it("'random' from env is a seed in [0, 2^64) without a warning", () => {
    const { resolved, warnings } = resolve({}, { [ENV]: 'random' });
    expect(resolved.hashSeed >= 0n && resolved.hashSeed <= MAX).toBe(true);
    expect(warnings).toEqual([]);
  });

  it.each<[string, ToolLoopSpanProcessorOptions, Env, string]>([
    ['env not a number', {}, { [ENV]: 'seed' }, ENV],
    ['env negative', {}, { [ENV]: '-1' }, ENV],
    ['env 2^64', {}, { [ENV]: (1n << 64n).toString() }, ENV],
    ['explicit negative (env ignored)', { hashSeed: -1 }, { [ENV]: '42' }, 'option hashSeed'],
    ['explicit fraction', { hashSeed: 1.5 }, {}, 'option hashSeed'],
    ['explicit 2^64', { hashSeed: 1n << 64n }, {}, 'option hashSeed'],
  ])('invalid (%s) → 0 with a warning naming its source', (_name, options, env, source) => {
    const { resolved, warnings } = resolve(options, env);
    expect(resolved.hashSeed).toBe(0n);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(source);
    expect(warnings[0]).toContain('using 0');
  });
});

describe.each(['onLoopEvent', 'onAbort'] as const)('%s', (key) => {
  it('a function is kept, absent stays absent, without a warning', () => {
    const fn = () => {};
    expect(resolve({ [key]: fn }, {}).resolved[key]).toBe(fn);
    const absent = resolve({}, {});
    expect(absent.resolved[key]).toBeUndefined();
    expect(absent.warnings).toEqual([]);
  });

  it.each(['log', 1, true])('a non-function %j is ignored with a warning naming the option', (value) => {
    const { resolved, warnings } = resolve({ [key]: value }, {});
    expect(resolved[key]).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`option ${key}`);
  });
});

describe('env vars are read from the env argument only', () => {
  it('every TOOL_LOOP_GUARD_* variable applies at once, and explicit options beat all of them', () => {
    const env: Env = {
      TOOL_LOOP_GUARD_ABORT_ON_CRITICAL: 'true',
      TOOL_LOOP_GUARD_REDACT_CONTENT: '1',
      TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS: '60000',
      TOOL_LOOP_GUARD_MAX_LIVE_RUNS: '50',
      TOOL_LOOP_GUARD_CONFIG: '/etc/tlg.json5',
      TOOL_LOOP_GUARD_HASH_SEED: '12345',
    };
    const fromEnv: Partial<ResolvedProcessorOptions> = resolve({}, env).resolved;
    expect(fromEnv).toMatchObject({
      abortOnCritical: true,
      redactContent: true,
      runIdleTtlMs: 60_000,
      maxLiveRuns: 50,
      configFile: '/etc/tlg.json5',
      hashSeed: 12345n,
    });
    const explicit = resolve(
      {
        abortOnCritical: false,
        redactContent: false,
        runIdleTtlMs: 1000,
        maxLiveRuns: 2,
        configFile: 'x.json5',
        hashSeed: 3,
      },
      env,
    );
    expect(explicit.resolved).toMatchObject({
      abortOnCritical: false,
      redactContent: false,
      runIdleTtlMs: 1000,
      maxLiveRuns: 2,
      configFile: 'x.json5',
      hashSeed: 3n,
    });
    expect(explicit.warnings).toEqual([]);
  });
});

describe('mode / TOOL_LOOP_GUARD_MODE', () => {
  it("defaults to 'enforce'; env and option set it, the option winning", () => {
    expect(resolve({}, {}).resolved.mode).toBe('enforce');
    expect(resolve({}, { TOOL_LOOP_GUARD_MODE: ' Shadow ' }).resolved.mode).toBe('shadow');
    expect(resolve({ mode: 'enforce' }, { TOOL_LOOP_GUARD_MODE: 'shadow' }).resolved.mode).toBe('enforce');
  });

  it('an unknown value enforces, with a warning naming the key', () => {
    const fromEnv = resolve({}, { TOOL_LOOP_GUARD_MODE: 'dry-run' });
    expect(fromEnv.resolved.mode).toBe('enforce');
    expect(fromEnv.warnings).toEqual([expect.stringContaining('TOOL_LOOP_GUARD_MODE') as string]);
    const explicit = resolve({ mode: 'off' as 'shadow' }, {});
    expect(explicit.warnings).toEqual([expect.stringContaining('option mode') as string]);
  });
});

describe('budgetTokens / budgetMs', () => {
  it('are absent by default, read from env, and the option beats env', () => {
    expect(resolve({}, {}).resolved.budget).toBeUndefined();
    expect(resolve({}, { TOOL_LOOP_GUARD_BUDGET_TOKENS: '50000' }).resolved.budget).toEqual({ tokens: 50_000 });
    expect(
      resolve({ budgetMs: 30_000 }, { TOOL_LOOP_GUARD_BUDGET_MS: '5', TOOL_LOOP_GUARD_BUDGET_TOKENS: '9' }).resolved
        .budget,
    ).toEqual({ tokens: 9, ms: 30_000 });
  });

  it('anything but a positive integer means no budget, with a warning naming the key', () => {
    const bad = resolve({ budgetTokens: -1 }, { TOOL_LOOP_GUARD_BUDGET_MS: 'soon' });
    expect(bad.resolved.budget).toBeUndefined();
    expect(bad.warnings).toEqual([
      expect.stringContaining('option budgetTokens must be a positive integer') as string,
      expect.stringContaining('TOOL_LOOP_GUARD_BUDGET_MS must be a positive integer') as string,
    ]);
  });
});

describe('recoveryWindow / TOOL_LOOP_GUARD_RECOVERY_WINDOW', () => {
  it('defaults to 5; 0 is allowed (off); a negative value warns and keeps 5', () => {
    expect(resolve({}, {}).resolved.recoveryWindow).toBe(5);
    expect(resolve({}, { TOOL_LOOP_GUARD_RECOVERY_WINDOW: '0' }).resolved.recoveryWindow).toBe(0);
    const bad = resolve({ recoveryWindow: -2 }, {});
    expect(bad.resolved.recoveryWindow).toBe(5);
    expect(bad.warnings).toEqual([
      expect.stringContaining('option recoveryWindow must be a non-negative integer') as string,
    ]);
  });
});

describe('evidenceSpans / tracerProvider', () => {
  it('evidence spans are on by default; TOOL_LOOP_GUARD_EVIDENCE_SPANS=off turns them off', () => {
    expect(resolve({}, {}).resolved.evidenceSpans).toBe(true);
    expect(resolve({}, { TOOL_LOOP_GUARD_EVIDENCE_SPANS: 'off' }).resolved.evidenceSpans).toBe(false);
  });

  it('a tracerProvider without getTracer is ignored with a warning naming the key; a function is kept', () => {
    const bad = resolve({ tracerProvider: {} as never }, {});
    expect(bad.resolved.tracerProvider).toBeUndefined();
    expect(bad.warnings).toEqual([expect.stringContaining('option tracerProvider') as string]);
    const lazy = () => undefined;
    expect(resolve({ tracerProvider: lazy }, {}).resolved.tracerProvider).toBe(lazy);
  });
});
