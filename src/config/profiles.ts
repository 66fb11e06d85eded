import type { LoopDetectionConfig, LoopDetectionProfileName } from './types.js';

/**
 * `profile: 'small-model'`, the recommended profile: detection on, with thresholds that one rule
 * chose on real runs of 13 agent set-ups (the rule `tool-loop-guard calibrate` applies to your
 * own runs): each critical is the larger of OpenClaw's count for the same evidence and the most
 * any successful run did + 1 + a margin of 2, each warning 2 before it. Identical calls back to
 * back are blocked at 10 (warned at 8); `ping_pong` needs no-progress evidence and is counted by
 * the repeats of each side; the same explained failure across changing arguments is blocked at 10
 * (warned at 8). Shipped as `profiles/small-model.json5` too; `docs/evaluation.md` scores it per set-up and
 * on set-ups the rule never saw.
 */
export const SMALL_MODEL_PROFILE: LoopDetectionConfig = Object.freeze({
  enabled: true,
  genericRepeatInARow: true,
  pingPongRequiresNoProgress: true,
  criticalThreshold: 10,
  warningThreshold: 8,
  similarOutcomeThreshold: 10,
  similarOutcomeWarningThreshold: 8,
  unknownToolThreshold: 10,
  unknownToolWarningThreshold: 8,
  typedErrorCriticalThreshold: 5,
  typedErrorWarningThreshold: 3,
  detectors: Object.freeze({ similarOutcome: true }),
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
