/**
 * A polluted `Object.prototype` changes nothing in detection: every setting (loop-detection keys,
 * detector toggles, the post-compaction guard, the agents list, the processor's options and the
 * `TOOL_LOOP_GUARD_*` environment) is read from own properties only, into objects without a
 * prototype at every level, so a key inherited from anywhere in the process is never a setting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_LOOP_DETECTION_CONFIG,
  markCompactionRetry,
  mergeLoopDetectionConfig,
  traceRun,
  traceToolCall,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';
import { createWorld, repeatRead, resetGlobals, runRoot, sc, SMALL, toolCall, type World } from './harness.js';

/** What each key, inherited, would do if it were read: switch a part of detection off or change it. */
const POLLUTION: Record<string, unknown> = {
  // tools.loopDetection: every threshold far out of reach, the switches and the profile.
  ...Object.fromEntries(
    Object.entries(DEFAULT_LOOP_DETECTION_CONFIG)
      .filter(([, value]) => typeof value === 'number')
      .map(([key]) => [key, 1_000_000]),
  ),
  enabled: false,
  trackHistory: false,
  profile: 'small-model',
  // detectors.*: every toggle flipped.
  ...Object.fromEntries(Object.entries(DEFAULT_LOOP_DETECTION_CONFIG.detectors).map(([key, on]) => [key, !on])),
  // postCompactionGuard.*.
  postCompactionGuard: { enabled: false, windowSize: 1_000_000 },
  windowSize: 1_000_000,
  detectors: { genericRepeat: false },
  byTool: { read: { warningThreshold: 1_000_000, criticalThreshold: 1_000_001 } },
  // The OpenClaw shape around the block, and the agents list.
  tools: { loopDetection: { enabled: false } },
  loopDetection: { enabled: false },
  agents: { list: [{ id: 'agent-a', tools: { loopDetection: { enabled: false } } }] },
  list: [{ id: 'agent-a', tools: { loopDetection: { enabled: false } } }],
  id: 'agent-a',
  // The processor's options.
  config: { tools: { loopDetection: { enabled: false } } },
  configFile: '/nonexistent/tool-loop-guard.json5',
  mode: 'shadow',
  adapters: [],
  maxLiveRuns: 1,
  runIdleTtlMs: 1,
  abortOnCritical: false,
  redactContent: true,
  hashSeed: 'random',
  budgetTokens: 1,
  budgetMs: 1,
  recoveryWindow: 0,
  evidenceSpans: false,
  // The environment the options fall back to.
  TOOL_LOOP_GUARD_CONFIG: '/nonexistent/tool-loop-guard.json5',
  TOOL_LOOP_GUARD_MODE: 'shadow',
  TOOL_LOOP_GUARD_MAX_LIVE_RUNS: '1',
  TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS: '1',
  TOOL_LOOP_GUARD_REDACT_CONTENT: 'true',
  TOOL_LOOP_GUARD_BUDGET_TOKENS: '1',
  TOOL_LOOP_GUARD_RECOVERY_WINDOW: '0',
};

const prototype = Object.prototype as Record<string, unknown>;

function pollute(): void {
  for (const [key, value] of Object.entries(POLLUTION))
    Object.defineProperty(prototype, key, { value, configurable: true, writable: true, enumerable: false });
}

function cleanUp(): void {
  for (const key of Object.keys(POLLUTION)) delete prototype[key];
}

let world: World | undefined;
afterEach(async () => {
  cleanUp();
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** What detection does in four set-ups that each read a different part of the settings. */
async function observe(): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  const withWorld = async (options: ToolLoopSpanProcessorOptions | undefined, drive: (w: World) => Promise<void>) => {
    world = await createWorld(options);
    await drive(world);
    await world.shutdown();
    world = undefined;
  };

  // The global block with its sections absent (detectors and the guard from their defaults).
  await withWorld({ config: SMALL }, async (w) => {
    const root = runRoot(w.tracer, 'global');
    seen.global = repeatRead(w.tracer, root, 4);
    root.end();
    seen.globalEvents = w.loopEvents.map((event) => `${event.level}:${event.detector}`);
  });

  // A tool's own thresholds over the global block (byTool), its sections absent too.
  const byTool = { read: { criticalThreshold: 4 } };
  await withWorld({ config: { tools: { loopDetection: { ...SMALL.tools.loopDetection, byTool } } } }, async (w) => {
    const root = runRoot(w.tracer, 'by-tool');
    seen.byTool = repeatRead(w.tracer, root, 5);
    root.end();
  });

  // An agent's block merged over the global one (agents.list).
  const agents = { list: [{ id: 'agent-b', tools: { loopDetection: { criticalThreshold: 4 } } }] };
  await withWorld({ config: { ...SMALL, agents } }, async (w) => {
    const root = runRoot(w.tracer, 'agent');
    const verdicts: unknown[] = [];
    for (let i = 0; i < 5; i += 1)
      verdicts.push(
        toolCall(w.tracer, {
          tool: 'read',
          args: '{"path":"/a"}',
          result: '"same"',
          parent: root,
          attributes: { [sc.ATTR_GEN_AI_AGENT_ID]: 'agent-b' },
        }).verdictAtStart,
      );
    root.end();
    seen.agent = verdicts;
  });

  // No options at all: the post-compaction guard on with its default window of 3.
  await withWorld(undefined, async (w) => {
    const tracer = w.tracer;
    const outcome = traceRun(tracer, { runId: 'compacted' }, async () => {
      markCompactionRetry(tracer);
      for (let i = 0; i < 3; i += 1) await traceToolCall(tracer, { name: 'read', args: { path: '/a' } }, () => 'same');
    });
    seen.guard = await outcome.then(
      () => 'completed',
      (error: { code?: string }) => error.code,
    );
    seen.aborts = w.aborts.length;
  });
  return seen;
}

describe('a polluted Object.prototype', () => {
  it('changes nothing that detection does, whatever config key it holds', async () => {
    const clean = await observe();
    expect(clean).toEqual({
      global: [undefined, undefined, 'warning', 'critical'],
      globalEvents: ['warning:generic_repeat', 'critical:generic_repeat'],
      byTool: [undefined, undefined, 'warning', 'warning', 'critical'],
      agent: [undefined, undefined, 'warning', 'warning', 'critical'],
      guard: 'compaction_loop_persisted',
      aborts: 1,
    });
    pollute();
    let polluted: Record<string, unknown>;
    try {
      polluted = await observe();
    } finally {
      cleanUp();
    }
    expect(polluted).toEqual(clean);
  });

  it('leaves a per-agent merge without inherited keys, nested sections included', () => {
    pollute();
    const merged = mergeLoopDetectionConfig(
      { warningThreshold: 2, detectors: { pingPong: false } },
      { criticalThreshold: 4, postCompactionGuard: {} },
    );
    expect([merged?.enabled, merged?.detectors?.genericRepeat, merged?.postCompactionGuard?.windowSize]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
