/**
 * The config entry points never throw on hostile values (only a named config file that
 * cannot be used rejects, with `ConfigFileError`), and read own properties only: keys that
 * arrive through `Object.prototype` are neither used nor trusted.
 */
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  markCompactionRetry,
  resolveLoopDetectionConfig,
  traceRun,
  traceToolCall,
  type LoopDetectionConfig,
  ToolLoopSpanProcessor,
  validateToolLoopGuardConfig,
  type ToolLoopGuardConfig,
} from '../../src/index.js';
import { createWorld, repeatRead, resetGlobals, runRoot, SMALL, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  delete (Object.prototype as Record<string, unknown>).enabled;
  delete (Object.prototype as Record<string, unknown>).criticalThreshold;
  resetGlobals();
});

const throwingGetter = (): ToolLoopGuardConfig => {
  const loopDetection = { enabled: true };
  Object.defineProperty(loopDetection, 'warningThreshold', {
    enumerable: true,
    get() {
      throw new Error('getter exploded');
    },
  });
  return { tools: { loopDetection } };
};

const throwingProxy = (): ToolLoopGuardConfig => ({
  tools: new Proxy(
    {},
    {
      get() {
        throw new Error('proxy get exploded');
      },
      ownKeys() {
        throw new Error('proxy ownKeys exploded');
      },
      has() {
        throw new Error('proxy has exploded');
      },
      getOwnPropertyDescriptor() {
        throw new Error('proxy descriptor exploded');
      },
    },
  ),
});

describe('hostile config values', () => {
  it.each([
    ['a throwing getter', throwingGetter],
    ['a throwing Proxy', throwingProxy],
  ])('%s: create() resolves with a warning and the readable rest still applies', async (_name, make) => {
    world = await createWorld({ config: make() });
    expect(world.diagLines.some((line) => /exploded|could not be read|unreadable/i.test(line))).toBe(true);
  });

  it('a throwing getter: the readable keys apply (enabled: true, default thresholds)', async () => {
    world = await createWorld({ config: throwingGetter() });
    const root = runRoot(world.tracer, 'run-getter');
    // Default warning threshold 10: the eleventh identical call warns.
    expect(repeatRead(world.tracer, root, 11).at(-1)).toBe('warning');
    root.end();
  });

  it.each([
    ['a throwing getter', throwingGetter],
    ['a throwing Proxy', throwingProxy],
  ])('%s: resolveLoopDetectionConfig and validateToolLoopGuardConfig do not throw', (_name, make) => {
    // resolveLoopDetectionConfig takes the loopDetection block: the getter's object, or the Proxy itself.
    const block = (): LoopDetectionConfig => {
      const tools = make().tools as Record<string, unknown>;
      try {
        return tools.loopDetection as LoopDetectionConfig;
      } catch {
        return tools;
      }
    };
    expect(() => resolveLoopDetectionConfig(block())).not.toThrow();
    expect(() => validateToolLoopGuardConfig(make())).not.toThrow();
    expect(validateToolLoopGuardConfig(make()).length).toBeGreaterThan(0);
  });

  it('create(null) resolves with the defaults and a warning', async () => {
    const lines: string[] = [];
    const log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
    diag.setLogger({ error: log, warn: log, info: log, debug: log, verbose: log }, DiagLogLevel.WARN);
    const processor = await ToolLoopSpanProcessor.create(null as never);
    expect(lines.some((line) => line.includes('options must be an object'))).toBe(true);
    await processor.shutdown();
  });

  it('an inherited enabled=false does not switch the post-compaction guard off', async () => {
    (Object.prototype as Record<string, unknown>).enabled = false;
    expect(resolveLoopDetectionConfig({}).postCompactionGuard.enabled).toBe(true);
    // Through the processor, with the whole OpenClaw shape: the guard still aborts a persisting loop.
    world = await createWorld({ config: { tools: { loopDetection: {} } } });
    const tracer = world.tracer;
    const outcome = traceRun(tracer, { runId: 'inherited-enabled' }, async () => {
      markCompactionRetry(tracer);
      for (let i = 0; i < 3; i += 1) await traceToolCall(tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
    });
    await expect(outcome).rejects.toMatchObject({ code: 'compaction_loop_persisted' });
  });

  it('an inherited enabled=true does not switch the rolling detectors on', () => {
    (Object.prototype as Record<string, unknown>).enabled = true;
    expect(resolveLoopDetectionConfig({}).enabled).toBe(false);
  });

  it('control: own keys still apply (enabled config detects a loop)', async () => {
    world = await createWorld({ config: SMALL });
    const root = runRoot(world.tracer, 'run-proto');
    expect(repeatRead(world.tracer, root, 4).at(-1)).toBe('critical');
    root.end();
  });

  it('keys inherited through Object.prototype do not change thresholds', () => {
    (Object.prototype as Record<string, unknown>).criticalThreshold = 1;
    expect(resolveLoopDetectionConfig({ enabled: true }).criticalThreshold).toBe(20);
  });
});
