import type { LoopDetectionConfig, LoopDetectionProfileName } from './types.js';

/**
 * `profile: 'small-model'`: for agents on smaller models, which repeat themselves more and
 * recover less. Each kind of repeat evidence is blocked at the lowest threshold that a
 * successful run would still have to exceed by two repeats on the evaluation data (OpenClaw's
 * rules at warning 3 / critical 5; four outcomes that are the same but for numbers and
 * whitespace; four identical calls in a row, whatever their results; two full laps of a
 * result-repeating cycle; four calls that got an answer the run already had). Shipped as `profiles/small-model.json5` too; `docs/evaluation.md`
 * measures it on 527 real runs.
 */
export const SMALL_MODEL_PROFILE: LoopDetectionConfig = Object.freeze({
  enabled: true,
  warningThreshold: 3,
  criticalThreshold: 5,
  cycleCriticalLaps: 2,
  identicalCallBudget: 4,
  lowGainCallBudget: 4,
  similarOutcomeThreshold: 4,
  redundantCallBudget: 4,
  similarityPercent: 100,
  detectors: Object.freeze({ resultCycle: true, identicalCallBudget: true, similarOutcome: true, redundantCall: true }),
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
