/**
 * Every attribute, event and metric name this package reads or writes.
 * The names are a public contract (dashboards, alert rules and users read them): add, never rename.
 */

// ── Span input attributes ────────────────────────────────────────
/** `gen_ai.operation.name`, written by `traceToolCall` / `traceRun`; adapters recognise tool spans by `gen_ai.tool.name`, not by it. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** Value of `gen_ai.operation.name` on tool-call spans (and the first word of their name). */
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
/** Value of `gen_ai.operation.name` on agent-invocation spans (the root span of `traceRun`). */
export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';
/** Name of the span `markCompactionRetry` records. */
export const SPAN_NAME_COMPACTION_RETRY = 'compaction.retry';
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
/**
 * Facts of a pre-computed outcome, read with `tool_loop.result_hash` (written by `traceToolCall`):
 * the outcome kind (`terminal-exec-failure`, `argument-validation`, `write-mutation`,
 * `tool-loop-veto`), an `exec` failure identity, a typed-error identity `<family>:<CODE>`, a
 * write's target digest, and `true` for a no-progress result that is not an error.
 */
export const ATTR_TOOL_LOOP_OUTCOME_KIND = 'tool_loop.outcome_kind';
export const ATTR_TOOL_LOOP_FAILURE_IDENTITY_HASH = 'tool_loop.failure_identity_hash';
export const ATTR_TOOL_LOOP_TYPED_ERROR = 'tool_loop.typed_error';
export const ATTR_TOOL_LOOP_MUTATION_TARGET_HASH = 'tool_loop.mutation_target_hash';
export const ATTR_TOOL_LOOP_NO_PROGRESS = 'tool_loop.no_progress';
/**
 * Facts of a call whose args hash is pre-computed (written with `tool_loop.args_hash` by the
 * helpers): `tool_loop.mutation_target_hash` for a `write` with a path, and the typed-error
 * family `tool_call:<inner id>` of the meta-tool `tool_call`.
 */
export const ATTR_TOOL_LOOP_FAILURE_FAMILY = 'tool_loop.failure_family';
/** `compaction.retry` = true on any span arms the post-compaction guard for its run. */
export const ATTR_COMPACTION_RETRY = 'compaction.retry';

// ── Span events ──────────────────────────────────────────────────
/** A warning verdict that was not suppressed. */
export const EVENT_TOOL_LOOP_WARNING = 'tool_loop.warning';
/** A critical verdict (never suppressed). */
export const EVENT_TOOL_LOOP_BLOCKED = 'tool_loop.blocked';
/** Post-compaction guard abort. */
export const EVENT_TOOL_LOOP_ABORTED = 'tool_loop.aborted';
/** Post-compaction guard armed. */
export const EVENT_TOOL_LOOP_GUARD_ARMED = 'tool_loop.guard_armed';
/** A post-compaction window closed without an abort (with its `tool_loop.pre_compaction_repeats`). */
export const EVENT_TOOL_LOOP_GUARD_WINDOW_CLOSED = 'tool_loop.guard_window_closed';

// ── Event attributes ─────────────────────────────────────────────
export const ATTR_TOOL_LOOP_DETECTOR = 'tool_loop.detector';
export const ATTR_TOOL_LOOP_LEVEL = 'tool_loop.level';
export const ATTR_TOOL_LOOP_ACTION = 'tool_loop.action';
export const ATTR_TOOL_LOOP_COUNT = 'tool_loop.count';
export const ATTR_TOOL_LOOP_MESSAGE = 'tool_loop.message';
export const ATTR_TOOL_LOOP_WARNING_KEY = 'tool_loop.warning_key';
export const ATTR_TOOL_LOOP_PAIRED_TOOL = 'tool_loop.paired_tool';
export const ATTR_TOOL_LOOP_WINDOW_SIZE = 'tool_loop.window_size';
/**
 * On `tool_loop.warning`: OpenClaw's system note for the model, `[System note: Tool-loop warning
 * after N repeated calls. …]`, which `traceToolCall` appends to the warned call's result;
 * integrations that build their own result append this value.
 */
export const ATTR_TOOL_LOOP_SYSTEM_NOTE = 'tool_loop.system_note';
/** On `argument_churn` warnings: `argument_churn`, the run shows activity without progress. */
export const ATTR_TOOL_LOOP_LIVENESS_SIGNAL = 'tool_loop.liveness_signal';
/** On `argument_churn` warnings: the churn's liveness clock, ms since the churn became active (not reset by other activity). */
export const ATTR_TOOL_LOOP_CHURN_ACTIVE_MS = 'tool_loop.churn_active_ms';
/** Calls of a post-compaction window that repeat a (tool, args) of the 16 outcomes before the compaction. */
export const ATTR_TOOL_LOOP_PRE_COMPACTION_REPEATS = 'tool_loop.pre_compaction_repeats';
/** On `tool_loop.guard_window_closed`: calls the window observed. */
export const ATTR_TOOL_LOOP_TOOL_CALLS = 'tool_loop.tool_calls';
/** On `tool_loop.guard_window_closed`: the tools that repeated a pre-compaction call (sorted, comma-joined). */
export const ATTR_TOOL_LOOP_REPEATED_TOOLS = 'tool_loop.repeated_tools';
/**
 * On a span `traceToolCall` did not execute: `recovery` for the run's first critical (one recovery
 * turn), `terminate` for the critical that ends the run, `sibling` for a batch member not run.
 */
export const ATTR_TOOL_LOOP_INTERVENTION = 'tool_loop.intervention';
/** `error.type` on the abort event; value {@link COMPACTION_LOOP_PERSISTED}. */
export const ATTR_ERROR_TYPE = 'error.type';

/** Span attribute: the tool span's verdict (`warning` / `critical` / `aborted`). */
export const ATTR_TOOL_LOOP_VERDICT = 'tool_loop.verdict';
/**
 * Span attribute, `true` on a span that `ToolLoopSampler` sampled in because its trace or run had
 * looped, where its delegate sampler would not have sampled it.
 */
export const ATTR_TOOL_LOOP_SAMPLED_IN = 'tool_loop.sampled_in';

// ── Values ───────────────────────────────────────────────────────────────────
export const COMPACTION_LOOP_PERSISTED = 'compaction_loop_persisted';
export const LEVEL_WARNING = 'warning';
export const LEVEL_CRITICAL = 'critical';
export const ACTION_WARN = 'warn';
export const ACTION_BLOCK = 'block';
export const ACTION_ABORT = 'abort';
export const ACTION_ARM = 'arm';
/** `tool_loop.action` of `tool_loop.guard_window_closed`: a report, no intervention. */
export const ACTION_REPORT = 'report';
export const VERDICT_WARNING = 'warning';
export const VERDICT_CRITICAL = 'critical';
export const VERDICT_ABORTED = 'aborted';
export const INTERVENTION_RECOVERY = 'recovery';
export const INTERVENTION_TERMINATE = 'terminate';
export const INTERVENTION_SIBLING = 'sibling';
export const LIVENESS_ARGUMENT_CHURN = 'argument_churn';

// ── Metrics ──────────────────────────────────────────────────────
/** Counter of emitted loop events, by action, detector, level, tool and agent. */
export const METRIC_TOOL_LOOP_EVENTS = 'tool_loop.events';

// ── Other conventions read by adapters ───────────────────────────────────────
/** Resource attribute naming the emitting service (OTel semantic conventions). */
export const ATTR_SERVICE_NAME = 'service.name';

/** Exception event name and message attribute (OTel semantic conventions). */
export const EVENT_EXCEPTION = 'exception';
export const ATTR_EXCEPTION_MESSAGE = 'exception.message';

// ── Instrumentation conventions read by the built-in adapters ────────────────
// Vercel AI SDK v5/v6 telemetry (verified against node_modules/ai/dist/index.mjs, ai@6.0.x).
/** Span name and `ai.operationId` of an AI SDK tool execution span. */
export const AI_SDK_TOOL_CALL = 'ai.toolCall';
/** `ai.operationId`: the AI SDK operation a span belongs to (also its span name). */
export const ATTR_AI_OPERATION_ID = 'ai.operationId';
/** AI SDK root operations that open a run when no run id is known. */
export const AI_SDK_OPERATION_GENERATE_TEXT = 'ai.generateText';
export const AI_SDK_OPERATION_STREAM_TEXT = 'ai.streamText';
export const ATTR_AI_TOOL_CALL_NAME = 'ai.toolCall.name';
export const ATTR_AI_TOOL_CALL_ID = 'ai.toolCall.id';
/** JSON text of the tool input; recorded only when `recordOutputs` is not `false`. */
export const ATTR_AI_TOOL_CALL_ARGS = 'ai.toolCall.args';
/** JSON text of the tool output, set before the span ends (same `recordOutputs` gate). */
export const ATTR_AI_TOOL_CALL_RESULT = 'ai.toolCall.result';
/** `experimental_telemetry.functionId`, on every AI SDK span. */
export const ATTR_AI_TELEMETRY_FUNCTION_ID = 'ai.telemetry.functionId';
/** `experimental_telemetry.metadata.runId`, on every AI SDK span of the call. */
export const ATTR_AI_TELEMETRY_METADATA_RUN_ID = 'ai.telemetry.metadata.runId';

// OpenInference (Arize) semantic conventions.
export const ATTR_OPENINFERENCE_SPAN_KIND = 'openinference.span.kind';
/** Value of `openinference.span.kind` on tool spans. */
export const OPENINFERENCE_SPAN_KIND_TOOL = 'TOOL';
export const ATTR_OPENINFERENCE_TOOL_NAME = 'tool.name';
export const ATTR_OPENINFERENCE_INPUT_VALUE = 'input.value';
export const ATTR_OPENINFERENCE_OUTPUT_VALUE = 'output.value';
export const ATTR_OPENINFERENCE_SESSION_ID = 'session.id';
/** Value of `openinference.span.kind` on model-call spans (their messages are read for tool calls). */
export const OPENINFERENCE_SPAN_KIND_LLM = 'LLM';
/** Prefixes of the flattened message lists of an LLM span: `llm.input_messages.<i>.message.role`, … */
export const ATTR_OPENINFERENCE_INPUT_MESSAGES = 'llm.input_messages';
export const ATTR_OPENINFERENCE_OUTPUT_MESSAGES = 'llm.output_messages';
/** Keys inside one flattened message (after `llm.*_messages.<i>.`) and one tool call (after `message.tool_calls.<j>.`). */
export const OPENINFERENCE_MESSAGE_ROLE = 'message.role';
export const OPENINFERENCE_MESSAGE_CONTENT = 'message.content';
export const OPENINFERENCE_MESSAGE_CONTENTS = 'message.contents';
export const OPENINFERENCE_MESSAGE_CONTENT_TEXT = 'message_content.text';
export const OPENINFERENCE_MESSAGE_TOOL_CALLS = 'message.tool_calls';
export const OPENINFERENCE_MESSAGE_TOOL_CALL_ID = 'message.tool_call_id';
export const OPENINFERENCE_TOOL_CALL_ID = 'tool_call.id';
export const OPENINFERENCE_TOOL_CALL_FUNCTION_NAME = 'tool_call.function.name';
export const OPENINFERENCE_TOOL_CALL_FUNCTION_ARGUMENTS = 'tool_call.function.arguments';

// Traceloop / OpenLLMetry.
export const ATTR_TRACELOOP_SPAN_KIND = 'traceloop.span.kind';
/** Value of `traceloop.span.kind` on tool spans. */
export const TRACELOOP_SPAN_KIND_TOOL = 'tool';
export const ATTR_TRACELOOP_ENTITY_NAME = 'traceloop.entity.name';
/** JSON envelope `{"args":[...],"kwargs":{...}}` of the call's parameters. */
export const ATTR_TRACELOOP_ENTITY_INPUT = 'traceloop.entity.input';
/** JSON text of the return value. */
export const ATTR_TRACELOOP_ENTITY_OUTPUT = 'traceloop.entity.output';
/** OpenLLMetry's model-call kind (`chat`, `completion`), set at start by its LLM instrumentations before 0.25 (JS) and in Python. */
export const ATTR_LLM_REQUEST_TYPE = 'llm.request.type';
/** Value of `llm.request.type` on chat model calls. */
export const LLM_REQUEST_TYPE_CHAT = 'chat';
/**
 * Prefixes of OpenLLMetry's flattened prompt and completion messages: `gen_ai.prompt.<i>.role`,
 * `.content`, `.tool_call_id`, `.tool_calls.<j>.{id,name,arguments}`; `gen_ai.completion.<i>.…`
 * likewise (and `.function_call.{name,arguments}`).
 */
export const ATTR_GEN_AI_PROMPT = 'gen_ai.prompt';
export const ATTR_GEN_AI_COMPLETION = 'gen_ai.completion';

// OpenClaw diagnostics-otel.
export const OPENCLAW_SPAN_TOOL_EXECUTION = 'openclaw.tool.execution';
/** Run-boundary spans (they carry no run id by design). */
export const OPENCLAW_SPAN_RUN = 'openclaw.run';
export const OPENCLAW_SPAN_HARNESS_RUN = 'openclaw.harness.run';
export const ATTR_OPENCLAW_TOOL_NAME = 'openclaw.toolName';
export const ATTR_OPENCLAW_AGENT = 'openclaw.agent';
/** `openclaw.outcome`; value {@link OPENCLAW_OUTCOME_BLOCKED} marks a call OpenClaw vetoed itself. */
export const ATTR_OPENCLAW_OUTCOME = 'openclaw.outcome';
export const OPENCLAW_OUTCOME_BLOCKED = 'blocked';
export const ATTR_OPENCLAW_CONTENT_TOOL_INPUT = 'openclaw.content.tool_input';
export const ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT = 'openclaw.content.tool_output';

// OTel GenAI agent conventions used for run scoping.
/** Session / conversation id, on `invoke_agent` (and chat) spans: scopes a run like a run id. */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
/** Boolean, set only `true` on the inference or agent span after a context compaction: arms the post-compaction guard. */
export const ATTR_GEN_AI_CONVERSATION_COMPACTED = 'gen_ai.conversation.compacted';

// OTel GenAI model-call spans: the tool calls a model asked for, read from its messages.
/** Values of `gen_ai.operation.name` on model-call spans whose messages are read. */
export const GEN_AI_OPERATION_CHAT = 'chat';
export const GEN_AI_OPERATION_TEXT_COMPLETION = 'text_completion';
export const GEN_AI_OPERATION_GENERATE_CONTENT = 'generate_content';
/**
 * JSON list of the messages sent to the model (`{role, parts}`; a tool result is a part of type
 * `tool_call_response` with `id` and `response`). Opt-in content.
 */
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
/** JSON list of the model's output messages (a requested call is a part of type `tool_call` with `id`, `name`, `arguments`). */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';

// OpenLLMetry LangChain instrumentation (`@traceloop/instrumentation-langchain`).
/** Value of `traceloop.span.kind` on its LangChain tool runs (with `gen_ai.operation.name` = `execute_tool`). */
export const TRACELOOP_SPAN_KIND_TASK = 'task';

// Genkit (`genkit:*` span attributes of its own OTel spans).
/** `action` on every Genkit action span. */
export const ATTR_GENKIT_TYPE = 'genkit:type';
/** `tool` on a Genkit tool action (set at start). */
export const ATTR_GENKIT_SUBTYPE = 'genkit:metadata:subtype';
export const GENKIT_SUBTYPE_TOOL = 'tool';
/** The action key, `/tool/<name>` for a tool (set at start). */
export const ATTR_GENKIT_KEY = 'genkit:key';
export const ATTR_GENKIT_NAME = 'genkit:name';
/** JSON of the action input (the tool's arguments), set before the span ends. */
export const ATTR_GENKIT_INPUT = 'genkit:input';
/** JSON of the action output (the tool's result), set before the span ends. */
export const ATTR_GENKIT_OUTPUT = 'genkit:output';

// VoltAgent (`@voltagent/core` 2.x, its own OTel spans).
/** The agent operation's id, on every span of an agent operation from its start. */
export const ATTR_VOLTAGENT_OPERATION_ID = 'operation.id';
/** `agent` on every span of an agent operation (a subagent's too), from its start. */
export const ATTR_VOLTAGENT_ENTITY_TYPE = 'entity.type';
export const VOLTAGENT_ENTITY_TYPE_AGENT = 'agent';
/** The agent's id (a subagent's spans: its parent's; the subagent's own is `subagent.id`). */
export const ATTR_VOLTAGENT_ENTITY_ID = 'entity.id';
export const ATTR_VOLTAGENT_SUBAGENT_ID = 'subagent.id';
/** The `conversationId` of the call, on every span of the operation when given. */
export const ATTR_VOLTAGENT_CONVERSATION_ID = 'conversation.id';
/** On the root span of an agent operation only (`running` at start). */
export const ATTR_VOLTAGENT_AGENT_STATE = 'agent.state';
/** `tool` on a tool span (`tool.execution:<name>`), `llm` on a model span. */
export const ATTR_VOLTAGENT_SPAN_TYPE = 'span.type';
export const VOLTAGENT_SPAN_TYPE_TOOL = 'tool';
/** The tool's name and the model's call id, on a tool span from its start (the same key as OpenInference's `tool.name`). */
export const ATTR_VOLTAGENT_TOOL_NAME = 'tool.name';
export const ATTR_VOLTAGENT_TOOL_CALL_ID = 'tool.call.id';
/** JSON of the tool's arguments (from the start of a tool span); the prompt on the operation's root span. */
export const ATTR_VOLTAGENT_INPUT = 'input';
/** The tool's result (JSON, or the string itself), set as a tool span ends; the answer on the root span. */
export const ATTR_VOLTAGENT_OUTPUT = 'output';
/** The messages sent to the model (earlier tool results among them): on model spans and the root span. */
export const ATTR_VOLTAGENT_LLM_MESSAGES = 'llm.messages';
export const ATTR_VOLTAGENT_AGENT_MESSAGES = 'agent.messages';
export const ATTR_VOLTAGENT_AGENT_MESSAGES_UI = 'agent.messages.ui';

// ── Cost, evidence, shadow mode and recovery ─────────────────────────────────
/** Token usage of a model call (OTel GenAI conventions), read from the chat spans of a run. */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/** On loop events: tokens the run's model calls reported between the loop's first member call and this call. */
export const ATTR_TOOL_LOOP_WASTED_TOKENS = 'tool_loop.wasted_tokens';
/** On loop events: ms from the loop's first member call to this call. */
export const ATTR_TOOL_LOOP_WASTED_MS = 'tool_loop.wasted_ms';
/** On a critical that a passed budget escalated from a warning: which budget (`tokens` / `time`). */
export const ATTR_TOOL_LOOP_BUDGET = 'tool_loop.budget';
export const BUDGET_TOKENS = 'tokens';
export const BUDGET_TIME = 'time';
/** On loop events of a cycle of calls: its period (the number of distinct calls in it). */
export const ATTR_TOOL_LOOP_PERIOD = 'tool_loop.period';
/** On loop events: the loop's distinct call signatures (args hashes), oldest first. */
export const ATTR_TOOL_LOOP_LOOP_SIGNATURES = 'tool_loop.loop_signatures';
/** On loop events, the window: the loop's member calls recorded before this one, oldest first. */
export const ATTR_TOOL_LOOP_WINDOW_CALL_IDS = 'tool_loop.window.call_ids';
export const ATTR_TOOL_LOOP_WINDOW_ARGS_HASHES = 'tool_loop.window.args_hashes';
/** `''` for a member without a result (still running, or blocked). */
export const ATTR_TOOL_LOOP_WINDOW_RESULT_HASHES = 'tool_loop.window.result_hashes';
/** On loop events: the call id of the loop's first member call (its first occurrence). */
export const ATTR_TOOL_LOOP_FIRST_CALL_ID = 'tool_loop.first_call_id';
/** Shadow mode (`mode: 'shadow'`): what would have been a warning, a block, an abort; nothing is enforced. */
export const EVENT_TOOL_LOOP_WOULD_WARN = 'tool_loop.would_warn';
export const EVENT_TOOL_LOOP_WOULD_BLOCK = 'tool_loop.would_block';
export const EVENT_TOOL_LOOP_WOULD_ABORT = 'tool_loop.would_abort';
export const ACTION_WOULD_WARN = 'would_warn';
export const ACTION_WOULD_BLOCK = 'would_block';
export const ACTION_WOULD_ABORT = 'would_abort';
/** Counter of recovery outcomes: after a warning or block, did the run's next calls escape the loop? */
export const METRIC_TOOL_LOOP_RECOVERY = 'tool_loop.recovery';
/** Attribute of `tool_loop.recovery`: `recovered`, `repeated` or `run_ended`. */
export const ATTR_TOOL_LOOP_RECOVERY_OUTCOME = 'tool_loop.recovery.outcome';
export const RECOVERY_RECOVERED = 'recovered';
export const RECOVERY_REPEATED = 'repeated';
export const RECOVERY_RUN_ENDED = 'run_ended';

// OTel GenAI guardrail drafts: the evidence span of a critical verdict.
/** `gen_ai.operation.name` of the evidence span, and the first word of its name. */
export const GEN_AI_OPERATION_RUN_GUARDRAIL = 'run_guardrail';
/** `gen_ai.guardrail.component.name` of the evidence span (and the second word of its name). */
export const GUARDRAIL_COMPONENT_TOOL_LOOP_GUARD = 'tool-loop-guard';
export const ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME = 'gen_ai.guardrail.component.name';
/** `input`: the guard judged a tool call before it ran; `output`: its outcome. */
export const ATTR_GEN_AI_GUARDRAIL_TARGET_TYPE = 'gen_ai.guardrail.target.type';
/** `tool_call`. */
export const ATTR_GEN_AI_GUARDRAIL_TARGET_SUBTYPE = 'gen_ai.guardrail.target.subtype';
/** The judged tool call's id. */
export const ATTR_GEN_AI_GUARDRAIL_TARGET_ID = 'gen_ai.guardrail.target.id';
/** The guard's verdict (`deny` for a critical), kept apart from what was enforced (`action.type`). */
export const ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE = 'gen_ai.guardrail.verdict.type';
export const ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON = 'gen_ai.guardrail.verdict.reason';
/** What was enforced: `block`, `abort` (the run), or `allow` in shadow mode. */
export const ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE = 'gen_ai.guardrail.action.type';
export const GUARDRAIL_TARGET_INPUT = 'input';
/** `output`: the guard judged a tool call's outcome (the post-compaction guard's abort). */
export const GUARDRAIL_TARGET_OUTPUT = 'output';
export const GUARDRAIL_TARGET_TOOL_CALL = 'tool_call';
export const GUARDRAIL_VERDICT_DENY = 'deny';
export const GUARDRAIL_ACTION_BLOCK = 'block';
export const GUARDRAIL_ACTION_ALLOW = 'allow';
/** The run was aborted (`compaction_loop_persisted`). */
export const GUARDRAIL_ACTION_ABORT = 'abort';
/** `gen_ai.guardrail.verdict.type` of a warning's evidence span (`tool-loop-guard serve`): the call may proceed. */
export const GUARDRAIL_VERDICT_WARN = 'warn';

// ── `tool-loop-guard serve`: loop detection as an OTLP service ───────────────
/**
 * `false` on what `tool-loop-guard serve` emits (evidence spans, their events): it judged the
 * call from the span the agent exported after the call ran, so nothing was enforced. The action
 * (`block`, `abort`) is what the guard would have done inside the agent.
 */
export const ATTR_TOOL_LOOP_ENFORCED = 'tool_loop.enforced';
/** Counter of the spans `serve` received, by `tool_loop.serve.outcome`. */
export const METRIC_TOOL_LOOP_SERVE_SPANS = 'tool_loop.serve.spans';
/**
 * `accepted` (buffered to be judged) or `rejected` (malformed: no valid ids or start time; the
 * request's partial success says how many).
 */
export const ATTR_TOOL_LOOP_SERVE_OUTCOME = 'tool_loop.serve.outcome';
export const SERVE_OUTCOME_ACCEPTED = 'accepted';
export const SERVE_OUTCOME_REJECTED = 'rejected';
/**
 * Counter of export requests `serve` refused, unread, with the protocol's retryable status (its
 * buffer was full, or it was stopping): the sender keeps them and retries.
 */
export const METRIC_TOOL_LOOP_SERVE_REFUSED_REQUESTS = 'tool_loop.serve.refused_requests';
/** Gauge: spans `serve` holds waiting for their trace's grace period. */
export const METRIC_TOOL_LOOP_SERVE_BUFFERED_SPANS = 'tool_loop.serve.buffered_spans';
/** Gauge: runs whose detection state `serve` holds (what a replica that dies loses). */
export const METRIC_TOOL_LOOP_SERVE_LIVE_RUNS = 'tool_loop.serve.live_runs';
/** Counter of runs whose state `serve` released, by `tool_loop.serve.reason` (`root-ended`, `idle`, `capacity`, `shutdown`). */
export const METRIC_TOOL_LOOP_SERVE_RELEASED_RUNS = 'tool_loop.serve.released_runs';
export const ATTR_TOOL_LOOP_SERVE_REASON = 'tool_loop.serve.reason';
