import type { ResolvedLoopDetectionConfig } from '../config.js';
import { detectArgumentChurn } from './argument-churn.js';
import type { DetectorFinding } from './detector.js';
import { detectGenericRepeatCritical, detectGenericRepeatWarning } from './generic-repeat.js';
import { detectGlobalCircuitBreaker } from './global-circuit-breaker.js';
import { detectKnownPollNoProgress } from './known-poll-no-progress.js';
import { detectIdenticalCallBudget, detectIdenticalCallBudgetWarning } from './identical-call-budget.js';
import { detectPingPong } from './ping-pong.js';
import { detectRedundantCall, detectRedundantCallWarning } from './redundant-call.js';
import { detectResultCycle, detectResultCycleWarning } from './result-cycle.js';
import { detectSimilarOutcome, detectSimilarOutcomeWarning } from './similar-outcome.js';
import { detectTypedErrorRepeatCritical, detectTypedErrorRepeatWarning } from './typed-error-repeat.js';
import { detectUnknownToolRepeat, detectUnknownToolRepeatWarning } from './unknown-tool-repeat.js';
import type { RunHistory } from '../history/run-history.js';
import type { ToolCallSignature } from '../types.js';

/**
 * Runs the detectors over a run's history, before the call is recorded, in OpenClaw's
 * decision order: the first detector that finds something wins. The typed-error identity has no
 * call site upstream; ours puts its critical after `generic_repeat`'s and its warning after
 * `argument_churn`, so that neither shadows a critical. This package's opt-in detectors (off by
 * default) put their criticals before `ping_pong`, whose warning would otherwise shadow them,
 * and their warnings — with the unknown-tool warning, which OpenClaw does not have — after every
 * critical, so that a warning never hides a block.
 * Returns `undefined` (not stuck) when detection is disabled (`enabled` is not `true`).
 */
export function detectToolCallLoop(
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
): DetectorFinding | undefined {
  if (!config.enabled) return undefined;
  // Each detector called by name, not from a list in a loop: the opt-in detectors, off by
  // default, then cost only their first test.
  return (
    detectUnknownToolRepeat(history, call, config) ??
    detectGlobalCircuitBreaker(history, call, config) ??
    detectKnownPollNoProgress(history, call, config) ??
    detectResultCycle(history, call, config) ??
    detectIdenticalCallBudget(history, call, config) ??
    detectSimilarOutcome(history, call, config) ??
    detectRedundantCall(history, call, config) ??
    detectPingPong(history, call, config) ??
    detectGenericRepeatCritical(history, call, config) ??
    detectTypedErrorRepeatCritical(history, call, config) ??
    detectArgumentChurn(history, call, config) ??
    detectUnknownToolRepeatWarning(history, call, config) ??
    detectResultCycleWarning(history, call, config) ??
    detectIdenticalCallBudgetWarning(history, call, config) ??
    detectSimilarOutcomeWarning(history, call, config) ??
    detectRedundantCallWarning(history, call, config) ??
    detectTypedErrorRepeatWarning(history, call, config) ??
    detectGenericRepeatWarning(history, call, config)
  );
}
