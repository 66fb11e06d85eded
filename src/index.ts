/**
 * tool-loop-guard: OpenClaw's tool-loop detection as an OpenTelemetry SpanProcessor.
 * See README.md for setup and the span contract (attribute, event and metric names in semconv).
 */
export { ToolLoopSpanProcessor, type ToolLoopProcessorStats } from './otel/processor.js';
export { wrapExporter } from './otel/annotating-exporter.js';
export {
  DEFAULT_MAX_LIVE_RUNS,
  DEFAULT_RECOVERY_WINDOW,
  DEFAULT_RUN_IDLE_TTL_MS,
  type ToolLoopSpanProcessorOptions,
} from './otel/options.js';
export type { RecoveryCounts, RecoveryOutcome, RecoveryResolution } from './engine/recovery/recovery-watch.js';
export { ToolLoopSampler, type ToolLoopSamplerCallbacks } from './otel/loop-aware-sampler.js';
export {
  DEFAULT_MAX_LOOPING_RUNS,
  DEFAULT_MAX_RECORDED_TRACES,
  DEFAULT_SAMPLER_RECORD,
  type SamplerRecordMode,
  type ToolLoopSamplerOptions,
} from './otel/sampler-options.js';
export { getToolLoopVerdict, type LoopAbortEvent, type LoopEvent, type ToolSpanVerdict } from './otel/loop-event.js';
export {
  DEFAULT_ADAPTERS,
  aiSdkAdapter,
  genAiAdapter,
  genkitAdapter,
  openClawAdapter,
  openInferenceAdapter,
  openLlmetryLangChainAdapter,
  traceloopAdapter,
  voltAgentAdapter,
  type AdapterTriggers,
  type ChatToolCalls,
  type RequestedToolCall,
  type RunScopeHint,
  type ToolCallEnd,
  type ToolCallStart,
  type ToolResultMessage,
  type ToolSpanAdapter,
} from './spans/adapters/index.js';
export type { SpanView } from './spans/span-view.js';

export { traceRun, type RunContext, type TraceRunOptions } from './instrument/trace-run.js';
export { withRun, type WithRunOptions } from './instrument/with-run.js';
export {
  traceToolCall,
  traceToolCallBatch,
  type ToolCallBatchEntry,
  type ToolCallContext,
  type TraceToolCallOptions,
} from './instrument/trace-tool-call.js';
export type { ToolLoopBlockedResult, ToolLoopIntervention } from './instrument/tool-loop-results.js';
export type { CriticalStage } from './instrument/run-recovery.js';
export { toolLoopSystemNote } from './engine/system-note.js';
export { markCompactionRetry } from './instrument/mark-compaction-retry.js';
export { guardAiSdkTools } from './instrument/ai-sdk-tools.js';
export { guardLangChainTools, type LangChainToolShape } from './instrument/langchain-tools.js';
export { guardMastraTools } from './instrument/mastra-tools.js';
export type { GuardToolsOptions } from './instrument/guard-tool-function.js';

export {
  CompactionLoopPersistedError,
  COMPACTION_LOOP_PERSISTED_CODE,
} from './engine/errors/compaction-loop-persisted-error.js';
export { ToolLoopBlockedError, TOOL_LOOP_BLOCKED_CODE } from './engine/errors/tool-loop-blocked-error.js';
export { isToolLoopAbort } from './engine/errors/tool-loop-abort.js';
export { blockedToolResult, type BlockedToolResult } from './engine/hashing/outcome-hash.js';
export type { LoopDetectorName, LoopLevel, LoopVerdict } from './engine/types.js';

export {
  ConfigFileError,
  DEFAULT_LOOP_DETECTION_CONFIG,
  LOOP_DETECTION_PROFILES,
  loadConfigFile,
  loopDetectionProfile,
  mergeLoopDetectionConfig,
  SMALL_MODEL_PROFILE,
  resolveLoopDetectionConfig,
  validateToolLoopGuardConfig,
  type ConfigIssue,
  type LoopDetectionConfig,
  type LoopDetectionProfileName,
  type LoopDetectorToggles,
  type PostCompactionGuardConfig,
  type ResolvedLoopDetectionConfig,
  type ToolLoopGuardConfig,
} from './config/index.js';

import * as semconv from './semconv.js';
export { semconv };
