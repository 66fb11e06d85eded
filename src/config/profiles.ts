import type { LoopDetectionConfig, LoopDetectionProfileName } from './types.js';

/**
 * `profile: 'small-model'`: for agents on smaller models, which repeat themselves more and
 * recover less. One rule for every kind of repeat evidence: four repeats are allowed and the
 * next call is blocked — four identical outcomes (OpenClaw's rules at critical 4, warning 3),
 * four near-duplicate outcomes of a tool, four identical calls in a row whatever their results,
 * and two full laps of a result-repeating cycle (four calls for a cycle of two). Shipped as
 * `profiles/small-model.json5` too; `docs/evaluation.md` measures it on 527 real runs.
 */
export const SMALL_MODEL_PROFILE: LoopDetectionConfig = Object.freeze({
  enabled: true,
  warningThreshold: 3,
  criticalThreshold: 4,
  cycleCriticalLaps: 2,
  identicalCallBudget: 4,
  lowGainCallBudget: 4,
  similarOutcomeThreshold: 4,
  similarityPercent: 90,
  volatileFieldObservations: 3,
  detectors: Object.freeze({ resultCycle: true, identicalCallBudget: true, similarOutcome: true }),
});

/** The profiles a `profile` key may name. */
export const LOOP_DETECTION_PROFILES: Readonly<Record<LoopDetectionProfileName, LoopDetectionConfig>> = Object.freeze({
  'small-model': SMALL_MODEL_PROFILE,
});

/** The settings of a profile name, or `undefined` when it names none. */
export function loopDetectionProfile(name: unknown): LoopDetectionConfig | undefined {
  return typeof name === 'string' && Object.hasOwn(LOOP_DETECTION_PROFILES, name)
    ? LOOP_DETECTION_PROFILES[name as LoopDetectionProfileName]
    : undefined;
}
