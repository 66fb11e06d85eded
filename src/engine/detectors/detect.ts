import type { ResolvedLoopDetectionConfig } from '../config.js';
import { detectArgumentChurn } from './argument-churn.js';
import type { Detector, DetectorFinding } from './detector.js';
import { detectGenericRepeatCritical, detectGenericRepeatWarning } from './generic-repeat.js';
import { detectGlobalCircuitBreaker } from './global-circuit-breaker.js';
import { detectKnownPollNoProgress } from './known-poll-no-progress.js';
import { detectIdenticalCallBudget } from './identical-call-budget.js';
import { detectPingPong } from './ping-pong.js';
import { detectRedundantCall } from './redundant-call.js';
import { detectResultCycle } from './result-cycle.js';
import { detectSimilarOutcome } from './similar-outcome.js';
import { detectTypedErrorRepeatCritical, detectTypedErrorRepeatWarning } from './typed-error-repeat.js';
import { detectUnknownToolRepeat } from './unknown-tool-repeat.js';
import type { ScopedHistory } from '../history/queries.js';
import type { ToolCallSignature } from '../types.js';

/**
 * OpenClaw's decision order: the first detector that finds something wins. The typed-error
 * identity has no call site upstream; ours puts its critical after `generic_repeat`'s and its
 * warning after `argument_churn`, so that neither shadows a critical. This package's opt-in
 * detectors (all critical, off by default) come before `ping_pong`, whose warning would
 * otherwise shadow them.
 */
export const DETECTION_ORDER: readonly Detector[] = [
  detectUnknownToolRepeat,
  detectGlobalCircuitBreaker,
  detectKnownPollNoProgress,
  detectResultCycle,
  detectIdenticalCallBudget,
  detectSimilarOutcome,
  detectRedundantCall,
  detectPingPong,
  detectGenericRepeatCritical,
  detectTypedErrorRepeatCritical,
  detectArgumentChurn,
  detectTypedErrorRepeatWarning,
  detectGenericRepeatWarning,
];

/**
 * Runs the detectors in order over a run scope's history, before the call is recorded.
 * Returns `undefined` (not stuck) when detection is disabled (`enabled` is not `true`).
 */
export function detectToolCallLoop(
  history: ScopedHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
): DetectorFinding | undefined {
  if (!config.enabled) return undefined;
  for (const detector of DETECTION_ORDER) {
    const finding = detector(history, call, config);
    if (finding) return finding;
  }
  return undefined;
}
