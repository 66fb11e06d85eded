/**
 * `tool-loop-guard/engine`: OpenClaw's tool-loop detection without OpenTelemetry — hashing,
 * one run's detection state, the post-compaction guard and the config resolver. Nothing here
 * loads `@opentelemetry/*`; the span processor and the offline analyzer are built on it.
 *
 * ```ts
 * const digester = await createDigester();
 * const run = new LoopRun({ config: resolveLoopDetectionConfig({ enabled: true }) });
 * const params = { path: '/a' };
 * const call = describeToolCall(digester, 'read', params);
 * const check = run.judge(call); // before the tool runs; recorded unless blocked
 * if (!check.blocked) {
 *   const result = await read(params);
 *   run.complete(call, undefined, hashToolOutcome(digester, { toolName: 'read', params, result }));
 * }
 * ```
 *
 * @packageDocumentation
 */

// Hashing: canonical, seeded xxhash64 of arguments and outcomes.
export { createDigester, type Digester } from './engine/hashing/digest.js';
export { hashToolArgs } from './engine/hashing/args-hash.js';
export { describeToolCall } from './engine/hashing/tool-call.js';
export {
  blockedToolResult,
  hashToolOutcome,
  type BlockedToolResult,
  type OutcomeHash,
  type ToolOutcome,
} from './engine/hashing/outcome-hash.js';
export { canonicalString } from './engine/hashing/canonical.js';

// One run's detection: its records, detectors, suppression, the post-compaction guard.
export {
  LoopRun,
  type GuardAbort,
  type JudgeOptions,
  type LoopPolicy,
  type LoopRunOptions,
  type RunCheck,
} from './engine/loop-run.js';
export type { BudgetKind, LoopBudget } from './engine/cost/loop-budget.js';
export type { LoopWindow } from './engine/evidence/loop-window.js';
export type { CallRef } from './engine/evidence/call-refs.js';
export type { RecoveryCounts, RecoveryOutcome, RecoveryResolution } from './engine/recovery/recovery-watch.js';
export {
  PostCompactionGuard,
  type GuardVerdict,
  type GuardWindowSummary,
  type PostCompactionGuardOptions,
} from './engine/post-compaction-guard.js';

// OpenClaw's session window, shared by several runs (`LoopRunOptions.history`), and the
// detectors run over one run's view of it.
export { ToolCallHistory, type HashedOutcome, type PendingCall } from './engine/history/tool-call-history.js';
export type { RunHistory } from './engine/history/run-history.js';
export { detectToolCallLoop } from './engine/detectors/detect.js';
export type { DetectorFinding } from './engine/detectors/detector.js';

export type {
  LoopCheck,
  LoopDetectorName,
  LoopLevel,
  LoopVerdict,
  OutcomeKind,
  ToolCallRecord,
  ToolCallSignature,
} from './engine/types.js';
export {
  COMPACTION_LOOP_PERSISTED_CODE,
  CompactionLoopPersistedError,
  type CompactionLoopPersistedDetails,
} from './engine/errors/compaction-loop-persisted-error.js';
export { TOOL_LOOP_BLOCKED_CODE, ToolLoopBlockedError } from './engine/errors/tool-loop-blocked-error.js';
export { isToolLoopAbort } from './engine/errors/tool-loop-abort.js';
export { toolLoopSystemNote } from './engine/system-note.js';
export { silentLogger, type EngineLogger } from './util/logger.js';

// Configuration: OpenClaw-shaped blocks, resolved to what a LoopRun runs with.
export type { ResolvedLoopDetectionConfig } from './engine/config.js';
export { AgentConfigResolver } from './config/agent-config-resolver.js';
export { DEFAULT_LOOP_DETECTION_CONFIG } from './config/defaults.js';
export { mergeLoopDetectionConfig } from './config/merge.js';
export { LOOP_DETECTION_PROFILES, loopDetectionProfile, SMALL_MODEL_PROFILE } from './config/profiles.js';
export { resolveLoopDetectionConfig, type ResolveOptions } from './config/resolve.js';
export type { ConfigIssue } from './config/config-issue.js';
export { validateToolLoopGuardConfig } from './config/validate.js';
export type {
  AgentLoopDetectionEntry,
  LoopDetectionConfig,
  LoopDetectionProfileName,
  LoopDetectorToggles,
  PostCompactionGuardConfig,
  ToolLoopGuardConfig,
} from './config/types.js';
