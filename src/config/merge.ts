import { snapshotConfig } from './snapshot.js';
import type { LoopDetectionConfig } from './types.js';

/**
 * OpenClaw's per-agent merge: no agent block → the global block as is; no global
 * block → the agent block as is; both → a shallow overlay where agent keys win, plus nested
 * overlays of `detectors` and `postCompactionGuard`, and of each tool's `byTool` thresholds.
 */
export function mergeLoopDetectionConfig(
  globalGiven: LoopDetectionConfig | undefined,
  agentGiven: LoopDetectionConfig | undefined,
): LoopDetectionConfig | undefined {
  // Own properties only, each read once; the resolver reports what could not be read.
  const global = snapshotConfig(globalGiven).value as LoopDetectionConfig | undefined;
  const agent = snapshotConfig(agentGiven).value as LoopDetectionConfig | undefined;
  if (!agent) return global;
  if (!global) return agent;
  const merged: LoopDetectionConfig = overlay(global, agent);
  if (global.detectors || agent.detectors) merged.detectors = overlay(global.detectors, agent.detectors);
  if (global.postCompactionGuard || agent.postCompactionGuard) {
    merged.postCompactionGuard = overlay(global.postCompactionGuard, agent.postCompactionGuard);
  }
  if (global.byTool || agent.byTool) {
    // Keyed by tool names, which may be anything (`__proto__` included): no prototype to reach.
    const byTool = Object.assign(Object.create(null) as NonNullable<LoopDetectionConfig['byTool']>, global.byTool);
    for (const [tool, thresholds] of Object.entries(agent.byTool ?? {}))
      byTool[tool] = overlay(byTool[tool], thresholds);
    merged.byTool = byTool;
  }
  return merged;
}

/**
 * `{ ...under, ...over }` without a prototype, as the snapshots it merges: a key neither sets is
 * absent, never one inherited through a polluted `Object.prototype`.
 */
function overlay<T extends object>(under: T | undefined, over: T | undefined): T {
  return Object.assign(Object.create(null) as T, under, over);
}
