/**
 * The framework-free engine: canonical hashing, outcome projections, per-run history,
 * detectors, warning suppression and the post-compaction guard. Nothing here imports
 * `@opentelemetry/*`; the span processor, the helpers and the CLI all build on it.
 */
export { hashToolArgs } from './hashing/args-hash.js';
export { canonicalString, writeCanonical, type CanonicalSink } from './hashing/canonical.js';
export {
  COMPACTION_LOOP_PERSISTED_CODE,
  CompactionLoopPersistedError,
  type CompactionLoopPersistedDetails,
} from './errors/compaction-loop-persisted-error.js';
export { DETECTION_ORDER, detectToolCallLoop } from './detectors/detect.js';
export type { Detector, DetectorFinding, DetectorLogLine } from './detectors/detector.js';
export { createDigester, type Digester } from './hashing/digest.js';
export {
  ToolCallHistory,
  normalizeRunId,
  type NoProgressStreak,
  type PingPongCandidate,
  type ScopedHistory,
  type UnknownToolStreak,
} from './history/tool-call-history.js';
export { isKnownPollCall } from './hashing/known-poll.js';
export { silentLogger, type EngineLogger } from '../util/logger.js';
export { LoopRun, type GuardAbort } from './loop-run.js';
export { LoopSession, type LoopCheck } from './loop-session.js';
export type { HashedOutcome, PendingCall } from './history/tool-call-history.js';
export {
  blockedToolResult,
  hashToolOutcome,
  isOpenClawShapedResult,
  type BlockedToolResult,
  type OutcomeHash,
  type ToolOutcome,
} from './hashing/outcome-hash.js';
export { PostCompactionGuard, type GuardObservation, type GuardVerdict, type PostCompactionGuardOptions } from './post-compaction-guard.js';
export { isSendLikeCall, stripVolatileDeliveryIds } from './hashing/send-like.js';
export { describeToolCall } from './hashing/tool-call.js';
export { NOT_STUCK, type LoopDetectionResult, type LoopDetectorName, type LoopLevel, type LoopVerdict, type ToolCallRecord, type ToolCallSignature } from './types.js';
export { extractUnknownToolName } from './hashing/unknown-tool.js';
export { normalizeUpdatePlanParams } from './hashing/update-plan.js';
export { WarningSuppression, MAX_WARNING_KEYS } from './warning-suppression.js';
