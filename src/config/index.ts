/** Configuration: OpenClaw-shaped types, defaults, validation, clamping, per-agent merge, JSON5 files. */
export { AgentConfigResolver } from './agent-config-resolver.js';
export {
  DEFAULT_CRITICAL_THRESHOLD,
  DEFAULT_GLOBAL_CIRCUIT_BREAKER_THRESHOLD,
  DEFAULT_HISTORY_SIZE,
  DEFAULT_LOOP_DETECTION_CONFIG,
  DEFAULT_POST_COMPACTION_WINDOW_SIZE,
  DEFAULT_UNKNOWN_TOOL_THRESHOLD,
  DEFAULT_WARNING_THRESHOLD,
} from './defaults.js';
export {
  ConfigFileError,
  loadConfigFile,
  MAX_CONFIG_FILE_BYTES,
  parseConfigText,
  type LoadedConfig,
} from './load-file.js';
export { mergeLoopDetectionConfig } from './merge.js';
export { LOOP_DETECTION_PROFILES, loopDetectionProfile, SMALL_MODEL_PROFILE } from './profiles.js';
export { isPositiveInteger } from '../util/is-positive-integer.js';
export { resolveLoopDetectionConfig, type ResolveOptions } from './resolve.js';
export type {
  AgentLoopDetectionEntry,
  LoopDetectionConfig,
  LoopDetectionProfileName,
  LoopDetectorToggles,
  PostCompactionGuardConfig,
  ResolvedLoopDetectionConfig,
  ToolLoopGuardConfig,
} from './types.js';
export type { ConfigIssue } from './config-issue.js';
export { validateLoopDetectionConfig, validateToolLoopGuardConfig } from './validate.js';
