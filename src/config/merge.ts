import { snapshotConfig } from './snapshot.js';
import type { LoopDetectionConfig } from './types.js';

/**
 * OpenClaw's per-agent merge: no agent block → the global block as is; no global
 * block → the agent block as is; both → a shallow overlay where agent keys win, plus nested
 * overlays of `detectors` and `postCompactionGuard`.
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
  const merged: LoopDetectionConfig = { ...global, ...agent };
  if (global.detectors || agent.detectors) merged.detectors = { ...global.detectors, ...agent.detectors };
  if (global.postCompactionGuard || agent.postCompactionGuard) {
    merged.postCompactionGuard = { ...global.postCompactionGuard, ...agent.postCompactionGuard };
  }
  return merged;
}
