/**
 * Every attribute, event and metric name this package reads or writes.
 * The names are a public contract (DESIGN §3–§4): add, never rename.
 */

// ── Span input attributes (DESIGN §3) ────────────────────────────────────────
/** `gen_ai.operation.name`; the value {@link GEN_AI_OPERATION_EXECUTE_TOOL} marks a tool span. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** Value of `gen_ai.operation.name` on tool-call spans. */
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
/** Tool name (required for a span to be a tool call). */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** Tool call id. */
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** Tool arguments as JSON text. */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** Tool result as JSON text (plain text when not JSON). */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** Agent id, on the tool span or an ancestor; selects per-agent config. */
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
/** Pre-computed normalised arguments hash (wins over raw arguments). */
export const ATTR_TOOL_LOOP_ARGS_HASH = 'tool_loop.args_hash';
/** Pre-computed outcome hash (wins over the raw result). */
export const ATTR_TOOL_LOOP_RESULT_HASH = 'tool_loop.result_hash';
/** Boolean: the call is a known poll. */
export const ATTR_TOOL_LOOP_POLL = 'tool_loop.poll';
/** The unavailable tool an error names (set together with `tool_loop.result_hash`). */
export const ATTR_TOOL_LOOP_UNKNOWN_TOOL = 'tool_loop.unknown_tool';
/** Run scope, on the tool span or any ancestor. */
export const ATTR_TOOL_LOOP_RUN_ID = 'tool_loop.run_id';
/** `compaction.retry` = true on any span arms the post-compaction guard for its run. */
export const ATTR_COMPACTION_RETRY = 'compaction.retry';

// ── Span events (DESIGN §4) ──────────────────────────────────────────────────
/** A warning verdict that was not suppressed. */
export const EVENT_TOOL_LOOP_WARNING = 'tool_loop.warning';
/** A critical verdict (never suppressed). */
export const EVENT_TOOL_LOOP_BLOCKED = 'tool_loop.blocked';
/** Post-compaction guard abort. */
export const EVENT_TOOL_LOOP_ABORTED = 'tool_loop.aborted';
/** Post-compaction guard armed. */
export const EVENT_TOOL_LOOP_GUARD_ARMED = 'tool_loop.guard_armed';

// ── Event attributes (DESIGN §4) ─────────────────────────────────────────────
export const ATTR_TOOL_LOOP_DETECTOR = 'tool_loop.detector';
export const ATTR_TOOL_LOOP_LEVEL = 'tool_loop.level';
export const ATTR_TOOL_LOOP_ACTION = 'tool_loop.action';
export const ATTR_TOOL_LOOP_COUNT = 'tool_loop.count';
export const ATTR_TOOL_LOOP_MESSAGE = 'tool_loop.message';
export const ATTR_TOOL_LOOP_WARNING_KEY = 'tool_loop.warning_key';
export const ATTR_TOOL_LOOP_PAIRED_TOOL = 'tool_loop.paired_tool';
export const ATTR_TOOL_LOOP_WINDOW_SIZE = 'tool_loop.window_size';
/** `error.type` on the abort event; value {@link COMPACTION_LOOP_PERSISTED}. */
export const ATTR_ERROR_TYPE = 'error.type';

/** Span attribute: the tool span's verdict (`warning` / `critical` / `aborted`). */
export const ATTR_TOOL_LOOP_VERDICT = 'tool_loop.verdict';

// ── Values ───────────────────────────────────────────────────────────────────
export const COMPACTION_LOOP_PERSISTED = 'compaction_loop_persisted';
export const LEVEL_WARNING = 'warning';
export const LEVEL_CRITICAL = 'critical';
export const ACTION_WARN = 'warn';
export const ACTION_BLOCK = 'block';
export const ACTION_ABORT = 'abort';
export const ACTION_ARM = 'arm';
export const VERDICT_WARNING = 'warning';
export const VERDICT_CRITICAL = 'critical';
export const VERDICT_ABORTED = 'aborted';

// ── Metrics (DESIGN §4) ──────────────────────────────────────────────────────
/** Counter of emitted loop events, by action, detector, level, tool and agent. */
export const METRIC_TOOL_LOOP_EVENTS = 'tool_loop.events';

// ── Other conventions read by adapters ───────────────────────────────────────
/** Exception event name and message attribute (OTel semantic conventions). */
export const EVENT_EXCEPTION = 'exception';
export const ATTR_EXCEPTION_MESSAGE = 'exception.message';
